package store

/*
typedef struct sqlite3 sqlite3;
extern int sqlite3_db_config(sqlite3 *, int, ...);
extern int sqlite3_auto_extension(void (*)(void));
extern int sqlite3_config(int, ...);
typedef struct sqlite3_mutex sqlite3_mutex;
extern sqlite3_mutex *sqlite3_db_mutex(sqlite3 *);
extern int sqlite3_status64(int, long long *, long long *, int);

// SQLITE_CONFIG_MEMSTATUS and SQLITE_STATUS_MEMORY_USED (sqlite3.h).
#define REWIND_CONFIG_MEMSTATUS 9
#define REWIND_STATUS_MEMORY_USED 0

// SQLITE_DBCONFIG_ENABLE_QPSG (sqlite3.h).
#define REWIND_DBCONFIG_ENABLE_QPSG 1007

static int rewind_qpsg_on;
static int rewind_unlocked;

// rewind_qpsg is an auto-extension: SQLite calls it for every connection
// it opens, before the connection is used.
static int rewind_qpsg(sqlite3 *db, char **err, const void *api) {
	int on = 0;
	int rc = sqlite3_db_config(db, REWIND_DBCONFIG_ENABLE_QPSG, 1, &on);
	if (rc == 0 && on == 1) __atomic_add_fetch(&rewind_qpsg_on, 1, __ATOMIC_RELAXED);
	if (sqlite3_db_mutex(db) == 0) __atomic_add_fetch(&rewind_unlocked, 1, __ATOMIC_RELAXED);
	return rc;
}

// rewind_register_qpsg turns SQLite's count of its allocations off, then
// registers rewind_qpsg. The count can only be turned off before SQLite
// initializes, which sqlite3_auto_extension does; when something in the
// process initialized it already, sqlite3_config refuses and the count
// stays on (slower, nothing else changes).
static int rewind_register_qpsg(void) {
	sqlite3_config(REWIND_CONFIG_MEMSTATUS, 0);
	return sqlite3_auto_extension((void (*)(void))rewind_qpsg);
}

static int rewind_qpsg_connections(void) {
	return __atomic_load_n(&rewind_qpsg_on, __ATOMIC_RELAXED);
}

static int rewind_unlocked_connections(void) {
	return __atomic_load_n(&rewind_unlocked, __ATOMIC_RELAXED);
}

static long long rewind_memory_counted(void) {
	long long cur = 0, hi = 0;
	sqlite3_status64(REWIND_STATUS_MEMORY_USED, &cur, &hi, 0);
	return hi;
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

// SQLite's locks and its count of allocations are of no use to the store,
// and cost about a tenth of the CPU of its short statements (the
// time-travel property test: pthread_mutex_lock and unlock, 6 % of its
// profile). A connection is used by one goroutine at a time (database/sql
// holds a connection's lock around every call into the driver, and
// go-sqlite3's statements are its connection's), so the connections are
// opened without SQLite's per-connection mutex (_mutex=no in dsnBusy,
// SQLITE_OPEN_NOMUTEX); sqlite3_interrupt, the one call made from another
// goroutine, needs none. The count of allocations, which takes a global
// mutex around every malloc and free, is turned off before SQLite
// initializes (rewind_register_qpsg); it only feeds sqlite3_status and the
// soft heap limit, which the store uses neither of.

// unlockedConnections counts the connections opened without a mutex.
func unlockedConnections() int { return int(C.rewind_unlocked_connections()) }

// memoryCounted is the high-water mark of SQLite's count of its
// allocations: 0 while the count is off.
func memoryCounted() int64 { return int64(C.rewind_memory_counted()) }
