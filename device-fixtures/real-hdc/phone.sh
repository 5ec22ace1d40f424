#!/usr/bin/env bash
# A phone for the real-hdc suite (tests/it/real_hdc): OpenHarmony's hdcd, built for Linux,
# chrooted into a folder laid out like a phone's (/system/bin, /data/local/tmp) in a network
# and mount namespace of its own: hdcd listens on every interface and binds one fixed abstract
# socket (JDWP's), so two cannot share a namespace, and what the audit writes on the device
# stays in the phone. Its tools are fake-hdc under their names (src/bin/fake-hdc/phone).
#
# Run as root, by the suite:
#   unshare --net --mount phone.sh ROOT HDCD FAKE_HDC FIXTURES DEVICE PORT [secure]
#     ROOT      an empty folder: the phone's /
#     HDCD      the hdcd binary; FAKE_HDC the fake-hdc binary (the phone's tools)
#     FIXTURES  device-fixtures, mounted read-only at /fixtures
#     DEVICE    the folder under it the tools answer from (a capture, a device with builds);
#               empty: a phone without its tools (a shell where `param` is not found)
#     PORT      the TCP port hdcd listens on
#     secure    the device wants the host authorized (nobody answers: it stays Unauthorized)
# Every step execs: the process the suite started becomes hdcd, and its pid names the phone's
# namespaces. The mounts go with the namespace when hdcd ends.
#
# As on a production phone, hdcd and every shell and tool it starts run as user `shell` (2000),
# never root (init starts hdcd so; `const.debuggable` is 0, so it keeps no root): a tool that
# reads a file only root may read fails here as it fails there.
set -euo pipefail
root=$1 hdcd=$2 fake=$3 fixtures=$4 device=$5 port=$6 mode=${7:-open}

mkdir -p "$root"/{system/bin,data/local/tmp,data/fake-phone,tmp,usr,etc,dev,proc,fixtures}
# The shell user's own: where hdcd receives files and the tools write theirs.
shell_uid=2000
chown -R "$shell_uid:$shell_uid" "$root/data" "$root/tmp"
for dir in bin lib lib64 sbin; do ln -sfn "usr/$dir" "$root/$dir"; done
touch "$root/system/bin/hdcd" "$root/system/bin/fake-hdc"
if [ -n "$device" ]; then
  for tool in aa bm cat hidumper hitrace param pidof snapshot_display SP_daemon uitest; do
    ln -sfn fake-hdc "$root/system/bin/$tool"
  done
fi

ip link set lo up
# Mounted, not copied (fake-hdc's debug build is tens of MB), and read-only.
sources=(/usr /etc "$fixtures" "$hdcd" "$fake")
targets=(usr etc fixtures system/bin/hdcd system/bin/fake-hdc)
for i in "${!sources[@]}"; do
  mount --bind "${sources[$i]}" "$root/${targets[$i]}"
  mount -o remount,bind,ro "$root/${targets[$i]}"
done
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"

authorize=(HDCD_PARAM_const_hdc_secure=0)
[ "$mode" = secure ] && authorize=()
exec chroot --userspec="$shell_uid:$shell_uid" "$root" /usr/bin/env -i PATH=/system/bin:/usr/bin:/bin HOME=/data TMPDIR=/data/local/tmp \
  HDCD_PARAM_persist_hdc_port="$port" HDCD_PARAM_const_security_developermode_state=true \
  "${authorize[@]}" HDCD_PARAM_const_debuggable=0 DWPIPE_FAKE_PHONE="/fixtures/$device" \
  DWPIPE_FAKE_HDC_STATE=/data/fake-phone /system/bin/hdcd -t -l4
