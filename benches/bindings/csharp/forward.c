/* The C# P/Invoke floor's C side (benches/bindings/csharp/PInvokeFloor.cs): benches/floor/host.c
 * built into a shared library with its main renamed floor_host_main, and floor_forward calling
 * the managed delegate the program set. Built by benches/bindings/build_csharp.sh pinvokefloor. */
#include <stdint.h>

typedef void (*floor_forward_fn)(uint32_t kind);

static floor_forward_fn forward_to;

/* Sets the function every event and tool call of host.c is handed to. */
void floor_set_forward(floor_forward_fn fn) { forward_to = fn; }

void floor_forward(uint32_t kind) { forward_to(kind); }
