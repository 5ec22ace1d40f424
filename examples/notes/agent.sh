#!/bin/sh
# A scripted stand-in for DevEco Code: makes the real edit the brief asks for (list items 12vp
# apart), then claims PASS the way Goal mode does. dwpipe runs it as:
#   sh agent.sh <workspace> <brief file>
set -eu
page="$1/entry/src/main/ets/pages/Index.ets"
sed -i 's/List({ space: 8 })/List({ space: 12 })/' "$page"
echo '{"type":"text","part":{"type":"text","text":"Changed the list spacing to 12vp. Result: PASS"}}'
