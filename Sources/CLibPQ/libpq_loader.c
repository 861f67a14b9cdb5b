// Trampolines into libpq.so.5, opened on first use (see include/CLibPQ.h for why it is not linked).
#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "CSystem.h"

static struct {
    void (*PQclear)(PGresult *res);
    char * (*PQcmdTuples)(PGresult *res);
    PostgresPollingStatusType (*PQconnectPoll)(PGconn *conn);
    PGconn * (*PQconnectStart)(const char *conninfo);
    void (*PQconninfoFree)(PQconninfoOption *connOptions);
    PQconninfoOption * (*PQconninfoParse)(const char *conninfo, char **errmsg);
    int (*PQconsumeInput)(PGconn *conn);
    char * (*PQerrorMessage)(const PGconn *conn);
    PGresult * (*PQexecParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat);
    void (*PQfinish)(PGconn *conn);
    void (*PQfreemem)(void *ptr);
    int (*PQgetisnull)(const PGresult *res, int tup_num, int field_num);
    int (*PQgetlength)(const PGresult *res, int tup_num, int field_num);
    char * (*PQgetvalue)(const PGresult *res, int tup_num, int field_num);
    int (*PQnfields)(const PGresult *res);
    PGnotify * (*PQnotifies)(PGconn *conn);
    int (*PQntuples)(const PGresult *res);
    char * (*PQresultErrorField)(const PGresult *res, int fieldcode);
    char * (*PQresultErrorMessage)(const PGresult *res);
    ExecStatusType (*PQresultStatus)(const PGresult *res);
    PQnoticeProcessor (*PQsetNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    int (*PQsocket)(const PGconn *conn);
    ConnStatusType (*PQstatus)(const PGconn *conn);
} libpq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

static void load(void) {
    // dlopen in a static program maps a second C library for libpq, whose state (its threads' TLS, malloc) the
    // program's own never set up: it crashes on the first thread that calls in.
    if (ck_process_is_static()) {
        snprintf(load_error, sizeof load_error,
                 "this program is linked statically, and a static program cannot load libpq.so.5 (use one linked "
                 "dynamically: the release `security` hands its sync verbs to security-libpq, installed beside it)");
        return;
    }
    void *handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "libpq.so.5 cannot be loaded (install libpq5): %s",
                 reason ? reason : "unknown error");
        return;
    }
#define RESOLVE(name)                                                                                   \
    do {                                                                                                \
        *(void **)(&libpq.name) = dlsym(handle, #name);                                                 \
        if (!libpq.name) {                                                                              \
            snprintf(load_error, sizeof load_error, "libpq.so.5 has no function %s", #name);           \
            return;                                                                                     \
        }                                                                                               \
    } while (0)
    RESOLVE(PQclear);
    RESOLVE(PQcmdTuples);
    RESOLVE(PQconnectPoll);
    RESOLVE(PQconnectStart);
    RESOLVE(PQconninfoFree);
    RESOLVE(PQconninfoParse);
    RESOLVE(PQconsumeInput);
    RESOLVE(PQerrorMessage);
    RESOLVE(PQexecParams);
    RESOLVE(PQfinish);
    RESOLVE(PQfreemem);
    RESOLVE(PQgetisnull);
    RESOLVE(PQgetlength);
    RESOLVE(PQgetvalue);
    RESOLVE(PQnfields);
    RESOLVE(PQnotifies);
    RESOLVE(PQntuples);
    RESOLVE(PQresultErrorField);
    RESOLVE(PQresultErrorMessage);
    RESOLVE(PQresultStatus);
    RESOLVE(PQsetNoticeProcessor);
    RESOLVE(PQsocket);
    RESOLVE(PQstatus);
#undef RESOLVE
    loaded = 1;
}

int ck_libpq_load(char *error, size_t size) {
    pthread_once(&load_once, load);
    if (!loaded && error && size > 0) snprintf(error, size, "%s", load_error);
    return loaded;
}

void PQclear(PGresult *res) { libpq.PQclear(res); }
char * PQcmdTuples(PGresult *res) { return libpq.PQcmdTuples(res); }
PostgresPollingStatusType PQconnectPoll(PGconn *conn) { return libpq.PQconnectPoll(conn); }
PGconn * PQconnectStart(const char *conninfo) { return libpq.PQconnectStart(conninfo); }
void PQconninfoFree(PQconninfoOption *connOptions) { libpq.PQconninfoFree(connOptions); }
PQconninfoOption * PQconninfoParse(const char *conninfo, char **errmsg) { return libpq.PQconninfoParse(conninfo, errmsg); }
int PQconsumeInput(PGconn *conn) { return libpq.PQconsumeInput(conn); }
char * PQerrorMessage(const PGconn *conn) { return libpq.PQerrorMessage(conn); }
PGresult * PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) { return libpq.PQexecParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat); }
void PQfinish(PGconn *conn) { libpq.PQfinish(conn); }
void PQfreemem(void *ptr) { libpq.PQfreemem(ptr); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return libpq.PQgetisnull(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { return libpq.PQgetlength(res, tup_num, field_num); }
char * PQgetvalue(const PGresult *res, int tup_num, int field_num) { return libpq.PQgetvalue(res, tup_num, field_num); }
int PQnfields(const PGresult *res) { return libpq.PQnfields(res); }
PGnotify * PQnotifies(PGconn *conn) { return libpq.PQnotifies(conn); }
int PQntuples(const PGresult *res) { return libpq.PQntuples(res); }
char * PQresultErrorField(const PGresult *res, int fieldcode) { return libpq.PQresultErrorField(res, fieldcode); }
char * PQresultErrorMessage(const PGresult *res) { return libpq.PQresultErrorMessage(res); }
ExecStatusType PQresultStatus(const PGresult *res) { return libpq.PQresultStatus(res); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) { return libpq.PQsetNoticeProcessor(conn, proc, arg); }
int PQsocket(const PGconn *conn) { return libpq.PQsocket(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return libpq.PQstatus(conn); }
