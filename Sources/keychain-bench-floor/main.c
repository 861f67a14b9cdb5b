// keychain-bench-floor: the whole-process floor beside which keychain-bench times `security find-generic-password
// -w` (issue 23): a small C program that opens a keychain's SQLite file and reads one row, and nothing else (no
// keybag, no key, no decryption). It prints the row's sealed secret as hex, so the work cannot be skipped.
//
//   keychain-bench-floor KEYCHAIN_DIRECTORY
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: keychain-bench-floor KEYCHAIN_DIRECTORY\n");
        return 2;
    }
    char path[4096];
    if (snprintf(path, sizeof path, "%s/keychain.db", argv[1]) >= (int)sizeof path) {
        fprintf(stderr, "keychain-bench-floor: the path is too long\n");
        return 2;
    }
    sqlite3 *database = NULL;
    if (sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "keychain-bench-floor: cannot open %s: %s\n", path, sqlite3_errmsg(database));
        sqlite3_close(database);
        return 1;
    }
    sqlite3_stmt *statement = NULL;
    int status = 1;
    if (sqlite3_prepare_v2(database, "SELECT secret FROM items WHERE tomb = 0 LIMIT 1", -1, &statement, NULL)
            == SQLITE_OK
        && sqlite3_step(statement) == SQLITE_ROW) {
        const unsigned char *bytes = sqlite3_column_blob(statement, 0);
        int count = sqlite3_column_bytes(statement, 0);
        for (int index = 0; index < count; index++) printf("%02x", bytes[index]);
        printf("\n");
        status = 0;
    } else {
        fprintf(stderr, "keychain-bench-floor: no item in %s: %s\n", path, sqlite3_errmsg(database));
    }
    sqlite3_finalize(statement);
    sqlite3_close(database);
    return status;
}
