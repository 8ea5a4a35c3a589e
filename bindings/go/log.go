package robota

// #include "robota.h"
import "C"

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

type logger struct{ fn LogFunc }

func (*logger) released() {}

// SetLogger installs the process-wide log function for lines at minLevel and above; nil
// removes it.
func SetLogger(fn LogFunc, minLevel LogLevel) error {
	var cerr *C.robota_error
	if fn == nil {
		st := C.robota_set_log_callback(nil, nil, nil, C.int32_t(minLevel), &cerr)
		return takeError("SetLogger", st, cerr)
	}
	h, ud := newHandle(&logger{fn: fn})
	st := C.robota_set_log_callback(logFn, ud, freeFn, C.int32_t(minLevel), &cerr)
	if st != C.ROBOTA_OK {
		dropHandle(h)
	}
	return takeError("SetLogger", st, cerr)
}
