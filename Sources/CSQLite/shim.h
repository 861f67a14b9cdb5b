#include <sqlite3.h>

/// Turns off SQLite's memory statistics, which take a global mutex on every allocation. Must run before SQLite is
/// initialised; later it returns SQLITE_MISUSE and changes nothing (harmless). sqlite3_config is variadic, which
/// Swift cannot call directly.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// SQLite's extended result codes and file-control opcodes that Swift sees only as C macros built from others
/// (`SQLITE_CONSTRAINT | (8 << 8)`), which it does not import: named here so Swift never retypes their numbers.
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int CSQLITE_FCNTL_PERSIST_WAL = SQLITE_FCNTL_PERSIST_WAL;

/// `SQLITE_TRANSIENT` (SQLite copies a bound value before the call returns), a cast macro Swift does not import.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
