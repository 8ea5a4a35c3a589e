package robota

// #include "robota.h"
import "C"

import "sync"

// LogLevel is a library log level.
type LogLevel int32

// Log levels.
const (
	LogTrace LogLevel = C.ROBOTA_LOG_TRACE
	LogDebug LogLevel = C.ROBOTA_LOG_DEBUG
	LogInfo  LogLevel = C.ROBOTA_LOG_INFO
	LogWarn  LogLevel = C.ROBOTA_LOG_WARN
	LogError LogLevel = C.ROBOTA_LOG_ERROR
)

// LogFunc receives library log lines. It is called from library threads, possibly
// concurrently: keep it quick and safe for concurrent use (a panic in it is dropped).
type LogFunc func(level LogLevel, target, message string)

type logger struct {
	fn   LogFunc
	done chan struct{} // closed when the library released it
}

func (l *logger) released() { close(l.done) }

// activeLogger is the installed logger (tests wait for its release).
var activeLogger struct {
	sync.Mutex
	l *logger
}

// SetLogger installs the process-wide log function for lines at minLevel and above; nil
// removes it.
func SetLogger(fn LogFunc, minLevel LogLevel) error {
	var cerr *C.robota_error
	activeLogger.Lock()
	defer activeLogger.Unlock()
	if fn == nil {
		st := C.robota_set_log_callback(nil, nil, nil, C.int32_t(minLevel), &cerr)
		if st == C.ROBOTA_OK {
			activeLogger.l = nil
		}
		return takeError("SetLogger", st, cerr)
	}
	l := &logger{fn: fn, done: make(chan struct{})}
	h, ud := newHandle(l)
	st := C.robota_set_log_callback(logFn, ud, freeFn, C.int32_t(minLevel), &cerr)
	if st != C.ROBOTA_OK {
		dropHandle(h)
	} else {
		activeLogger.l = l
	}
	return takeError("SetLogger", st, cerr)
}
