// libxcrypt (<crypt.h>): crypt_r and crypt_gensalt_rn, for the companion page's password hash.
#include <crypt.h>
