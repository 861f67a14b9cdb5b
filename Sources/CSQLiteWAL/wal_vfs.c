// A SQLite VFS over the default (unix) one that gathers the writes SQLite makes to a WAL file one after another
// and hands them to the kernel in one pwrite: SQLite writes each frame as two calls (its 24-byte header, then the
// page), so a commit of ten pages was twenty system calls, each splitting OS pages (a frame is 4,120 bytes). The
// bytes and their order on disk are SQLite's own; only the number of calls changes (issue 23: durable add 1.25 ->
// 1.12x its floor, update 1.6 -> 1.5x, delete 1.45 -> 1.25x).
//
// When the gathered bytes must reach the file: before anything else is done with that WAL file (a read, a sync, a
// size, a truncation, a lock, a file control, its close), before a write that does not follow them, and before
// any shared-memory call on any file of this process: a commit makes its frames visible to other connections by
// writing the WAL index through those calls, so a frame is in the file before any reader can be told of it. A
// crash before then loses only frames no commit had published. A write that fails is reported by the commit's
// sync: the engine's connections all run with synchronous=FULL, which syncs the WAL before the index is written
// (a shared-memory barrier cannot report a failure).
#include "CSQLiteWAL.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

/// The most bytes gathered before they are written (a larger commit is written in pieces of about this size):
/// the unix VFS writes at most 0x1ffff bytes in one call (it masks the length, and a longer write came back as
/// SQLITE_FULL after its first 128 KiB).
enum { gather_capacity = 0x1ffff };

typedef struct gathered_file gathered_file;

/// Our file: what we add, then the default VFS's own file (at `real_file`), whose methods we call.
struct gathered_file {
    sqlite3_file base;
    const sqlite3_io_methods *real_methods;
    // Only for a WAL file:
    pthread_mutex_t mutex;  // a flush from another thread's shared-memory call meets this file's writer here
    unsigned char *buffer;  // NULL for any other file
    int count;              // bytes gathered
    sqlite3_int64 offset;   // where they go in the file
    int error;              // a failed flush's result, reported by the file's next call
    gathered_file *next_wal;
};

static sqlite3_vfs gathering_vfs;
static sqlite3_vfs *default_vfs;
static pthread_mutex_t wal_list_mutex = PTHREAD_MUTEX_INITIALIZER;
static gathered_file *wal_list;  // the process's open WAL files
/// How many of them hold gathered bytes: a shared-memory call (two for every read transaction) takes no mutex
/// when none does. The connection whose frames a shared-memory call must find written gathered them on this
/// thread, or on another before the engine's lock passed the connection here, so this thread sees its count.
static atomic_int files_holding_bytes;

static sqlite3_file *real_file(sqlite3_file *handle) {
    return (sqlite3_file *)((char *)handle + sizeof(gathered_file));
}

static const sqlite3_io_methods *real(sqlite3_file *handle) {
    return ((gathered_file *)handle)->real_methods;
}

/// Writes what `file` has gathered; its mutex is held. A failure kept from an earlier flush is reported now.
static int flush_locked(gathered_file *file) {
    int status = file->error;
    file->error = SQLITE_OK;
    if (file->count > 0) {
        int written = file->real_methods->xWrite(real_file(&file->base), file->buffer, file->count, file->offset);
        if (status == SQLITE_OK) status = written;
        file->count = 0;
        atomic_fetch_sub_explicit(&files_holding_bytes, 1, memory_order_release);
    }
    return status;
}

/// Writes what a WAL file has gathered (nothing for any other file).
static int flush(sqlite3_file *handle) {
    gathered_file *file = (gathered_file *)handle;
    if (file->buffer == NULL) return SQLITE_OK;
    pthread_mutex_lock(&file->mutex);
    int status = flush_locked(file);
    pthread_mutex_unlock(&file->mutex);
    return status;
}

/// Writes what every WAL file of the process has gathered, before a shared-memory call. A failure is kept for
/// that file's next call (SQLite's shared-memory barrier cannot report one).
static void flush_all(void) {
    if (atomic_load_explicit(&files_holding_bytes, memory_order_acquire) == 0) return;
    pthread_mutex_lock(&wal_list_mutex);
    for (gathered_file *file = wal_list; file != NULL; file = file->next_wal) {
        pthread_mutex_lock(&file->mutex);
        if (file->count > 0) {
            // flush_locked reports a failure kept from before first, so keeping what it returns keeps the first.
            int status = flush_locked(file);
            if (status != SQLITE_OK) file->error = status;
        }
        pthread_mutex_unlock(&file->mutex);
    }
    pthread_mutex_unlock(&wal_list_mutex);
}

// MARK: Methods

static int gather_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    gathered_file *file = (gathered_file *)handle;
    if (file->buffer == NULL) return file->real_methods->xWrite(real_file(handle), data, amount, offset);
    pthread_mutex_lock(&file->mutex);
    int status = SQLITE_OK;
    if (file->error != SQLITE_OK
        || (file->count > 0 && (offset != file->offset + file->count || file->count + amount > gather_capacity))) {
        status = flush_locked(file);
    }
    if (status == SQLITE_OK) {
        if (amount > gather_capacity) {
            status = file->real_methods->xWrite(real_file(handle), data, amount, offset);
        } else {
            if (file->count == 0) {
                file->offset = offset;
                atomic_fetch_add_explicit(&files_holding_bytes, 1, memory_order_release);
            }
            memcpy(file->buffer + file->count, data, (size_t)amount);
            file->count += amount;
        }
    }
    pthread_mutex_unlock(&file->mutex);
    return status;
}

static int gather_close(sqlite3_file *handle) {
    gathered_file *file = (gathered_file *)handle;
    int status = flush(handle);
    if (file->buffer != NULL) {
        pthread_mutex_lock(&wal_list_mutex);
        for (gathered_file **link = &wal_list; *link != NULL; link = &(*link)->next_wal) {
            if (*link == file) {
                *link = file->next_wal;
                break;
            }
        }
        pthread_mutex_unlock(&wal_list_mutex);
    }
    int closed = file->real_methods->xClose(real_file(handle));
    if (file->buffer != NULL) {
        pthread_mutex_destroy(&file->mutex);
        sqlite3_free(file->buffer);
        file->buffer = NULL;
    }
    return status != SQLITE_OK ? status : closed;
}

// Every other call writes what is gathered first, then is the default VFS's.
#define FLUSHED(call)                          \
    do {                                       \
        int flushed = flush(handle);           \
        if (flushed != SQLITE_OK) return flushed; \
        return call;                           \
    } while (0)

static int gather_read(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    FLUSHED(real(handle)->xRead(real_file(handle), data, amount, offset));
}
static int gather_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    FLUSHED(real(handle)->xTruncate(real_file(handle), size));
}
static int gather_sync(sqlite3_file *handle, int flags) {
    FLUSHED(real(handle)->xSync(real_file(handle), flags));
}
static int gather_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    FLUSHED(real(handle)->xFileSize(real_file(handle), size));
}
static int gather_lock(sqlite3_file *handle, int level) {
    FLUSHED(real(handle)->xLock(real_file(handle), level));
}
static int gather_unlock(sqlite3_file *handle, int level) {
    FLUSHED(real(handle)->xUnlock(real_file(handle), level));
}
static int gather_check_reserved_lock(sqlite3_file *handle, int *result) {
    FLUSHED(real(handle)->xCheckReservedLock(real_file(handle), result));
}
static int gather_file_control(sqlite3_file *handle, int operation, void *argument) {
    FLUSHED(real(handle)->xFileControl(real_file(handle), operation, argument));
}
static int gather_sector_size(sqlite3_file *handle) {
    return real(handle)->xSectorSize(real_file(handle));
}
static int gather_device_characteristics(sqlite3_file *handle) {
    return real(handle)->xDeviceCharacteristics(real_file(handle));
}
static int gather_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **memory) {
    if (real(handle)->iVersion < 2 || real(handle)->xShmMap == NULL) return SQLITE_IOERR_SHMMAP;
    flush_all();
    return real(handle)->xShmMap(real_file(handle), region, size, extend, memory);
}
static int gather_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    if (real(handle)->iVersion < 2 || real(handle)->xShmLock == NULL) return SQLITE_IOERR_SHMLOCK;
    flush_all();
    return real(handle)->xShmLock(real_file(handle), offset, count, flags);
}
static void gather_shm_barrier(sqlite3_file *handle) {
    flush_all();
    if (real(handle)->iVersion >= 2 && real(handle)->xShmBarrier != NULL) real(handle)->xShmBarrier(real_file(handle));
}
static int gather_shm_unmap(sqlite3_file *handle, int delete_flag) {
    if (real(handle)->iVersion < 2 || real(handle)->xShmUnmap == NULL) return SQLITE_OK;
    flush_all();
    return real(handle)->xShmUnmap(real_file(handle), delete_flag);
}
static int gather_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    if (real(handle)->iVersion < 3 || real(handle)->xFetch == NULL) {
        *pointer = NULL;
        return SQLITE_OK;
    }
    FLUSHED(real(handle)->xFetch(real_file(handle), offset, amount, pointer));
}
static int gather_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    if (real(handle)->iVersion < 3 || real(handle)->xUnfetch == NULL) return SQLITE_OK;
    return real(handle)->xUnfetch(real_file(handle), offset, pointer);
}

static const sqlite3_io_methods gathering_methods = {
    3,
    gather_close,
    gather_read,
    gather_write,
    gather_truncate,
    gather_sync,
    gather_file_size,
    gather_lock,
    gather_unlock,
    gather_check_reserved_lock,
    gather_file_control,
    gather_sector_size,
    gather_device_characteristics,
    gather_shm_map,
    gather_shm_lock,
    gather_shm_barrier,
    gather_shm_unmap,
    gather_fetch,
    gather_unfetch,
};

// MARK: The VFS

static int gathering_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    gathered_file *file = (gathered_file *)handle;
    memset(file, 0, sizeof(gathered_file));
    int status = default_vfs->xOpen(default_vfs, name, real_file(handle), flags, out_flags);
    const sqlite3_io_methods *methods = real_file(handle)->pMethods;
    if (methods == NULL) return status != SQLITE_OK ? status : SQLITE_CANTOPEN;  // SQLite closes nothing then
    file->real_methods = methods;
    if (status == SQLITE_OK && (flags & SQLITE_OPEN_WAL)) {
        file->buffer = sqlite3_malloc(gather_capacity);
        if (file->buffer == NULL) {
            methods->xClose(real_file(handle));
            return SQLITE_NOMEM;
        }
        pthread_mutex_init(&file->mutex, NULL);
        pthread_mutex_lock(&wal_list_mutex);
        file->next_wal = wal_list;
        wal_list = file;
        pthread_mutex_unlock(&wal_list_mutex);
    }
    file->base.pMethods = &gathering_methods;
    return status;
}

static int gathering_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return default_vfs->xDelete(default_vfs, name, sync_directory);
}
static int gathering_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return default_vfs->xAccess(default_vfs, name, flags, result);
}
static int gathering_full_pathname(sqlite3_vfs *vfs, const char *name, int count, char *output) {
    (void)vfs;
    return default_vfs->xFullPathname(default_vfs, name, count, output);
}
static void *gathering_dlopen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return default_vfs->xDlOpen(default_vfs, name);
}
static void gathering_dlerror(sqlite3_vfs *vfs, int count, char *message) {
    (void)vfs;
    default_vfs->xDlError(default_vfs, count, message);
}
static void (*gathering_dlsym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return default_vfs->xDlSym(default_vfs, library, symbol);
}
static void gathering_dlclose(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    default_vfs->xDlClose(default_vfs, library);
}
static int gathering_randomness(sqlite3_vfs *vfs, int count, char *output) {
    (void)vfs;
    return default_vfs->xRandomness(default_vfs, count, output);
}
static int gathering_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return default_vfs->xSleep(default_vfs, microseconds);
}
static int gathering_current_time(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return default_vfs->xCurrentTime(default_vfs, time);
}
static int gathering_last_error(sqlite3_vfs *vfs, int count, char *message) {
    (void)vfs;
    return default_vfs->xGetLastError ? default_vfs->xGetLastError(default_vfs, count, message) : 0;
}
static int gathering_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return default_vfs->xCurrentTimeInt64(default_vfs, time);
}

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static int registration_status = SQLITE_ERROR;

static void register_once(void) {
    default_vfs = sqlite3_vfs_find(NULL);
    if (default_vfs == NULL || default_vfs->iVersion < 2) return;
    gathering_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(gathered_file) + default_vfs->szOsFile,
        .mxPathname = default_vfs->mxPathname,
        .zName = CK_WAL_VFS_NAME,
        .xOpen = gathering_open,
        .xDelete = gathering_delete,
        .xAccess = gathering_access,
        .xFullPathname = gathering_full_pathname,
        .xDlOpen = gathering_dlopen,
        .xDlError = gathering_dlerror,
        .xDlSym = gathering_dlsym,
        .xDlClose = gathering_dlclose,
        .xRandomness = gathering_randomness,
        .xSleep = gathering_sleep,
        .xCurrentTime = gathering_current_time,
        .xGetLastError = gathering_last_error,
        .xCurrentTimeInt64 = gathering_current_time_int64,
    };
    registration_status = sqlite3_vfs_register(&gathering_vfs, 0);
}

int ck_wal_vfs_register(void) {
    pthread_once(&registration, register_once);
    return registration_status;
}
