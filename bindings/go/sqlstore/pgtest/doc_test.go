package pgtest
import (
	"testing"
	_ "github.com/lib/pq"
	_ "github.com/robota-ai/robota-native/bindings/go/sqlstore"
)
func TestX(t *testing.T) {}
