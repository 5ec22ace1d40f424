/* The one function of bcryptprimitives.dll that Rust's std imports (for random bytes, since
 * Rust 1.78), which Wine 8 does not ship: ProcessPrng, over RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. Built by .ci/windows with mingw-w64, put next to the
 * Windows binaries the tests run under Wine; never shipped, never needed on real Windows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
