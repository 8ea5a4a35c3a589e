package robota

// Close waits twice for a library thread: for session_closed to be routed and for the
// registration's release. Waiting on a Go channel parks the goroutine, and when that leaves
// every P idle the runtime's monitor thread sleeps until the library thread calls back, then
// polls every 20 µs for a millisecond: a tenth of a warm scenario's CPU. A closeLatch waits
// in C instead: the closing goroutine stays in its cgo call, as in any blocking call into the
// library, and the callback only sets a flag.

// #include <pthread.h>
// #include <stdlib.h>
// #include "robota.h"
//
// typedef struct robota_go_latch {
//     pthread_mutex_t mu;
//     pthread_cond_t cond;
//     unsigned flags; // ROBOTA_GO_CLOSED, ROBOTA_GO_FREED
//     int refs;       // the session core's and the release's
// } robota_go_latch;
//
// enum { ROBOTA_GO_CLOSED = 1, ROBOTA_GO_FREED = 2 };
//
// static robota_go_latch *robota_go_latch_new(void) {
//     robota_go_latch *l = calloc(1, sizeof *l);
//     if (l == NULL) return NULL;
//     pthread_mutex_init(&l->mu, NULL);
//     pthread_cond_init(&l->cond, NULL);
//     l->refs = 2;
//     return l;
// }
//
// static void robota_go_latch_set(robota_go_latch *l, unsigned flag) {
//     pthread_mutex_lock(&l->mu);
//     l->flags |= flag;
//     pthread_cond_broadcast(&l->cond);
//     pthread_mutex_unlock(&l->mu);
// }
//
// static void robota_go_latch_wait(robota_go_latch *l, unsigned flag) {
//     pthread_mutex_lock(&l->mu);
//     while ((l->flags & flag) == 0) pthread_cond_wait(&l->cond, &l->mu);
//     pthread_mutex_unlock(&l->mu);
// }
//
// // Drops one of the two references; the last frees the latch.
// static void robota_go_latch_drop(robota_go_latch *l) {
//     pthread_mutex_lock(&l->mu);
//     int left = --l->refs;
//     pthread_mutex_unlock(&l->mu);
//     if (left == 0) {
//         pthread_cond_destroy(&l->cond);
//         pthread_mutex_destroy(&l->mu);
//         free(l);
//     }
// }
//
import "C"

// closeLatch is the C side of a session's two close-time signals.
type closeLatch struct{ l *C.robota_go_latch }

// newCloseLatch allocates a latch.
func newCloseLatch() closeLatch {
	l := C.robota_go_latch_new()
	if l == nil {
		panic("robota: out of memory")
	}
	return closeLatch{l}
}

// latchClosed records that session_closed was routed.
func (c *sessionCore) latchClosed() { C.robota_go_latch_set(c.latch.l, C.ROBOTA_GO_CLOSED) }

// latchFreed records the release and drops the release's reference.
func (c *sessionCore) latchFreed() {
	C.robota_go_latch_set(c.latch.l, C.ROBOTA_GO_FREED)
	C.robota_go_latch_drop(c.latch.l)
}

// waitClosed returns once session_closed was routed.
func (c *sessionCore) waitClosed() { C.robota_go_latch_wait(c.latch.l, C.ROBOTA_GO_CLOSED) }

// waitFreed returns once the library released the session.
func (c *sessionCore) waitFreed() { C.robota_go_latch_wait(c.latch.l, C.ROBOTA_GO_FREED) }

// dropLatch drops the core's reference to the latch, after its last wait.
func (c *sessionCore) dropLatch() { C.robota_go_latch_drop(c.latch.l) }

// discardLatch drops both references: the library never took the session.
func (c *sessionCore) discardLatch() {
	c.dropLatch()
	c.dropLatch()
}
