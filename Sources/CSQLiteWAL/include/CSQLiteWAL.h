// A SQLite VFS that writes each commit's WAL frames with one system call instead of two per frame.
#ifndef CSQLITEWAL_H
#define CSQLITEWAL_H

/// The name the VFS is registered under (pass it to sqlite3_open_v2).
#define CK_WAL_VFS_NAME "keychain-wal"

/// Registers the VFS (once; later calls do nothing) over SQLite's default one. Returns SQLITE_OK or SQLite's error.
int ck_wal_vfs_register(void);

#endif
