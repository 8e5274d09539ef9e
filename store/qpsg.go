package store

/*
typedef struct sqlite3 sqlite3;
extern int sqlite3_db_config(sqlite3 *, int, ...);
extern int sqlite3_auto_extension(void (*)(void));

// SQLITE_DBCONFIG_ENABLE_QPSG (sqlite3.h).
#define REWIND_DBCONFIG_ENABLE_QPSG 1007

static int rewind_qpsg_on;

// rewind_qpsg is an auto-extension: SQLite calls it for every connection
// it opens, before the connection is used.
static int rewind_qpsg(sqlite3 *db, char **err, const void *api) {
	int on = 0;
	int rc = sqlite3_db_config(db, REWIND_DBCONFIG_ENABLE_QPSG, 1, &on);
	if (rc == 0 && on == 1) __atomic_add_fetch(&rewind_qpsg_on, 1, __ATOMIC_RELAXED);
	return rc;
}

static int rewind_register_qpsg(void) {
	return sqlite3_auto_extension((void (*)(void))rewind_qpsg);
}

static int rewind_qpsg_connections(void) {
	return __atomic_load_n(&rewind_qpsg_on, __ATOMIC_RELAXED);
}
*/
import "C"

import (
	"fmt"
	"sync"
)

// Every connection SQLite opens in this process plans its statements
// without looking at the values bound to them (the query planner
// stability guarantee, SQLITE_DBCONFIG_ENABLE_QPSG). Without it, a
// statement whose plan might depend on a bound value (a LIMIT ?, an
// equality with 0 or 1) is prepared again at the first step after its
// parameters are bound; go-sqlite3 clears the bindings of every cached
// statement it reuses, so such statements, among them the view's segment
// read, the checkpoint probe, the page reads and GetSession, were parsed
// and planned again at every use: a quarter of the CPU of the time-travel
// property test. The store's plans never depend on bound values (its
// queries are written for their indexes, TestQueryPlans pins them), so
// nothing is lost. SQLite's auto-extension hook is the public way to reach
// each connection's handle; the store is this process's only SQLite user.
var qpsgOnce sync.Once
var errQPSG error

func enableQPSG() error {
	qpsgOnce.Do(func() {
		if rc := C.rewind_register_qpsg(); rc != 0 {
			errQPSG = fmt.Errorf("register the query planner stability guarantee: sqlite3 error %d", int(rc))
		}
	})
	return errQPSG
}

// qpsgConnections counts the connections opened with the guarantee on.
func qpsgConnections() int { return int(C.rewind_qpsg_connections()) }
