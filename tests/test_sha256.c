/* test_sha256.c — base/sha256.c against the test vectors of FIPS 180-2 (appendix B: "abc", the
 * 448-bit message, a million 'a's) and the empty message, whole and fed in pieces of every
 * length from 1 to 130 bytes (block boundaries, the padding's second block). */
#include "base/sha256.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void expect(const char *what, const unsigned char *msg, size_t n, size_t piece,
                   const char *want)
{
    sha256_ctx c;
    sha256_init(&c);
    for (size_t at = 0; at < n; at += piece)
        sha256_update(&c, msg + at, n - at < piece ? n - at : piece);
    unsigned char d[32];
    char hex[65];
    sha256_final(&c, d);
    sha256_hex(d, hex);
    CHECK(!strcmp(hex, want), "SHA-256 of %s in pieces of %zu: %s, want %s", what, piece, hex,
          want);
}

int main(void)
{
    static const char *abc = "abc",
                      *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    size_t million = 1000000;
    unsigned char *a = malloc(million);
    memset(a, 'a', million);
    for (size_t piece = 1; piece <= 130; piece++) {
        expect("\"\"", (const unsigned char *)"", 0, piece,
               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        expect("\"abc\"", (const unsigned char *)abc, 3, piece,
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        expect("the 448-bit message", (const unsigned char *)two, strlen(two), piece,
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }
    size_t pieces[] = {1, 63, 64, 65, 4096, 1000000};
    for (int k = 0; k < 6; k++)
        expect("a million 'a'", a, million, pieces[k],
               "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
    return check_done("test_sha256");
}
