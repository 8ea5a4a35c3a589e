/* The C ABI of Robota Native, exposed to Swift as the `CRobota` module: the installed header,
 * found through the include directory that pkg-config's `robota.pc` names (Cflags). */
#include <robota.h>
