#include <sqlite3.h>

/// Turns off SQLite's memory statistics, which take a global mutex on every allocation. Must run before SQLite is
/// initialised; later it returns SQLITE_MISUSE and changes nothing (harmless). sqlite3_config is variadic, which
/// Swift cannot call directly.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
