/* Second translation unit including robota.h: catches non-inline definitions in the header. */
#include "robota.h"

uint32_t tu2_abi_version(void) { return robota_abi_version(); }

const char *tu2_status_text(robota_status s) { return robota_status_str(s); }
