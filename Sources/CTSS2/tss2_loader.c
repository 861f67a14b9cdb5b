// Trampolines into the TPM software stack's libraries, opened on first use (see include/CTSS2.h for why they are not
// linked). One field, one RESOLVE and one trampoline per function declared in CTSS2.h.
#include "CTSS2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "CSystem.h"

static struct {
    const char * (*Tss2_RC_Decode)(TSS2_RC rc);
    TSS2_RC (*Tss2_TctiLdr_Initialize)(const char *nameConf, TSS2_TCTI_CONTEXT **context);
    void (*Tss2_TctiLdr_Finalize)(TSS2_TCTI_CONTEXT **context);
    TSS2_RC (*Esys_Initialize)(ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion);
    void (*Esys_Finalize)(ESYS_CONTEXT **context);
    void (*Esys_Free)(void *ptr);
    TSS2_RC (*Esys_TR_SetAuth)(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue);
    TSS2_RC (*Esys_TR_Close)(ESYS_CONTEXT *esysContext, ESYS_TR *rsrc_handle);
    TSS2_RC (*Esys_TR_FromTPMPublic)(ESYS_CONTEXT *esysContext, TPM2_HANDLE tpm_handle, ESYS_TR optionalSession1, ESYS_TR optionalSession2, ESYS_TR optionalSession3, ESYS_TR *object);
    TSS2_RC (*Esys_StartAuthSession)(ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller, TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash, ESYS_TR *sessionHandle);
    TSS2_RC (*Esys_TRSess_SetAttributes)(ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask);
    TSS2_RC (*Esys_FlushContext)(ESYS_CONTEXT *esysContext, ESYS_TR flushHandle);
    TSS2_RC (*Esys_CreatePrimary)(ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket);
    TSS2_RC (*Esys_Create)(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket);
    TSS2_RC (*Esys_Load)(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic, ESYS_TR *objectHandle);
    TSS2_RC (*Esys_Unseal)(ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData);
    TSS2_RC (*Esys_HMAC)(ESYS_CONTEXT *esysContext, ESYS_TR handle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_MAX_BUFFER *buffer, TPMI_ALG_HASH hashAlg, TPM2B_DIGEST **outHMAC);
    TSS2_RC (*Esys_Sign)(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_DIGEST *digest, const TPMT_SIG_SCHEME *inScheme, const TPMT_TK_HASHCHECK *validation, TPMT_SIGNATURE **signature);
    TSS2_RC (*Esys_ECDH_ZGen)(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_ECC_POINT *inPoint, TPM2B_ECC_POINT **outPoint);
    TSS2_RC (*Esys_NV_DefineSpace)(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_AUTH *auth, const TPM2B_NV_PUBLIC *publicInfo, ESYS_TR *nvHandle);
    TSS2_RC (*Esys_NV_Increment)(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3);
    TSS2_RC (*Esys_NV_UndefineSpace)(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3);
    TSS2_RC (*Esys_NV_Read)(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, UINT16 size, UINT16 offset, TPM2B_MAX_NV_BUFFER **data);
    TSS2_RC (*Esys_NV_ReadPublic)(ESYS_CONTEXT *esysContext, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2B_NV_PUBLIC **nvPublic, TPM2B_NAME **nvName);
    TSS2_RC (*Esys_DictionaryAttackParameters)(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, UINT32 newMaxTries, UINT32 newRecoveryTime, UINT32 lockoutRecovery);
    TSS2_RC (*Esys_DictionaryAttackLockReset)(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3);
    TSS2_RC (*Tss2_MU_TPM2B_PUBLIC_Marshal)(TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset);
    TSS2_RC (*Tss2_MU_TPM2B_PUBLIC_Unmarshal)(uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PUBLIC *dest);
    TSS2_RC (*Tss2_MU_TPM2B_PRIVATE_Marshal)(TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size, size_t *offset);
    TSS2_RC (*Tss2_MU_TPM2B_PRIVATE_Unmarshal)(uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PRIVATE *dest);
} tss2;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

// Opens one library; on failure says which and why, naming the Debian package that installs it.
static void *open_library(const char *name, const char *package) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s cannot be loaded (install %s): %s", name, package,
                 reason ? reason : "unknown error");
    }
    return handle;
}

static void load(void) {
    // A static program cannot dlopen a library that needs the C library's dynamic state (see CLibPQ).
    if (ck_process_is_static()) {
        snprintf(load_error, sizeof load_error,
                 "this program is linked statically, and a static program cannot load the TPM's libtss2 libraries");
        return;
    }
    // tpm2-tss logs every failed command to standard error, which a refused authorization or a foreign blob
    // are here (the caller gets the error, with the stack's text): quiet unless the user asked for its log.
    // Set once, before the libraries are loaded, under load_once.
    setenv("TSS2_LOG", "all+NONE", 0);
    void *esys = open_library("libtss2-esys.so.0", "libtss2-esys-3.0.2-0");
    if (!esys) return;
    void *tctildr = open_library("libtss2-tctildr.so.0", "libtss2-tctildr0");
    if (!tctildr) return;
    void *mu = open_library("libtss2-mu.so.0", "libtss2-mu0");
    if (!mu) return;
#define RESOLVE(handle, file, name)                                                                     \
    do {                                                                                                \
        *(void **)(&tss2.name) = dlsym(handle, #name);                                                  \
        if (!tss2.name) {                                                                               \
            snprintf(load_error, sizeof load_error, "%s has no function %s", file, #name);             \
            return;                                                                                     \
        }                                                                                               \
    } while (0)
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Initialize);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Finalize);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Free);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_TR_SetAuth);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_TR_Close);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_TR_FromTPMPublic);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_StartAuthSession);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_TRSess_SetAttributes);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_FlushContext);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_CreatePrimary);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Create);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Load);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Unseal);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_HMAC);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_Sign);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_ECDH_ZGen);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_NV_DefineSpace);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_NV_Increment);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_NV_UndefineSpace);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_NV_Read);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_NV_ReadPublic);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_DictionaryAttackParameters);
    RESOLVE(esys, "libtss2-esys.so.0", Esys_DictionaryAttackLockReset);
    RESOLVE(tctildr, "libtss2-tctildr.so.0", Tss2_TctiLdr_Initialize);
    RESOLVE(tctildr, "libtss2-tctildr.so.0", Tss2_TctiLdr_Finalize);
    RESOLVE(mu, "libtss2-mu.so.0", Tss2_MU_TPM2B_PUBLIC_Marshal);
    RESOLVE(mu, "libtss2-mu.so.0", Tss2_MU_TPM2B_PUBLIC_Unmarshal);
    RESOLVE(mu, "libtss2-mu.so.0", Tss2_MU_TPM2B_PRIVATE_Marshal);
    RESOLVE(mu, "libtss2-mu.so.0", Tss2_MU_TPM2B_PRIVATE_Unmarshal);
#undef RESOLVE
    // The response codes' texts are a comfort, not a need: without libtss2-rc the errors give the number alone.
    void *rc = dlopen("libtss2-rc.so.0", RTLD_NOW | RTLD_LOCAL);
    if (rc) *(void **)(&tss2.Tss2_RC_Decode) = dlsym(rc, "Tss2_RC_Decode");
    loaded = 1;
}

int ck_tss2_load(char *error, size_t size) {
    pthread_once(&load_once, load);
    if (!loaded && error && size > 0) snprintf(error, size, "%s", load_error);
    return loaded;
}

const char * ck_Tss2_RC_Decode(TSS2_RC rc) { return tss2.Tss2_RC_Decode ? tss2.Tss2_RC_Decode(rc) : NULL; }
TSS2_RC ck_Tss2_TctiLdr_Initialize(const char *nameConf, TSS2_TCTI_CONTEXT **context) { return tss2.Tss2_TctiLdr_Initialize(nameConf, context); }
void ck_Tss2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context) { tss2.Tss2_TctiLdr_Finalize(context); }
TSS2_RC ck_Esys_Initialize(ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion) { return tss2.Esys_Initialize(esys_context, tcti, abiVersion); }
void ck_Esys_Finalize(ESYS_CONTEXT **context) { tss2.Esys_Finalize(context); }
void ck_Esys_Free(void *ptr) { tss2.Esys_Free(ptr); }
TSS2_RC ck_Esys_TR_SetAuth(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue) { return tss2.Esys_TR_SetAuth(esysContext, handle, authValue); }
TSS2_RC ck_Esys_TR_Close(ESYS_CONTEXT *esysContext, ESYS_TR *rsrc_handle) { return tss2.Esys_TR_Close(esysContext, rsrc_handle); }
TSS2_RC ck_Esys_TR_FromTPMPublic(ESYS_CONTEXT *esysContext, TPM2_HANDLE tpm_handle, ESYS_TR optionalSession1, ESYS_TR optionalSession2, ESYS_TR optionalSession3, ESYS_TR *object) { return tss2.Esys_TR_FromTPMPublic(esysContext, tpm_handle, optionalSession1, optionalSession2, optionalSession3, object); }
TSS2_RC ck_Esys_StartAuthSession(ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller, TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash, ESYS_TR *sessionHandle) { return tss2.Esys_StartAuthSession(esysContext, tpmKey, bind, shandle1, shandle2, shandle3, nonceCaller, sessionType, symmetric, authHash, sessionHandle); }
TSS2_RC ck_Esys_TRSess_SetAttributes(ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask) { return tss2.Esys_TRSess_SetAttributes(esysContext, session, flags, mask); }
TSS2_RC ck_Esys_FlushContext(ESYS_CONTEXT *esysContext, ESYS_TR flushHandle) { return tss2.Esys_FlushContext(esysContext, flushHandle); }
TSS2_RC ck_Esys_CreatePrimary(ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket) { return tss2.Esys_CreatePrimary(esysContext, primaryHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR, objectHandle, outPublic, creationData, creationHash, creationTicket); }
TSS2_RC ck_Esys_Create(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket) { return tss2.Esys_Create(esysContext, parentHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR, outPrivate, outPublic, creationData, creationHash, creationTicket); }
TSS2_RC ck_Esys_Load(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic, ESYS_TR *objectHandle) { return tss2.Esys_Load(esysContext, parentHandle, shandle1, shandle2, shandle3, inPrivate, inPublic, objectHandle); }
TSS2_RC ck_Esys_Unseal(ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData) { return tss2.Esys_Unseal(esysContext, itemHandle, shandle1, shandle2, shandle3, outData); }
TSS2_RC ck_Esys_HMAC(ESYS_CONTEXT *esysContext, ESYS_TR handle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_MAX_BUFFER *buffer, TPMI_ALG_HASH hashAlg, TPM2B_DIGEST **outHMAC) { return tss2.Esys_HMAC(esysContext, handle, shandle1, shandle2, shandle3, buffer, hashAlg, outHMAC); }
TSS2_RC ck_Esys_Sign(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_DIGEST *digest, const TPMT_SIG_SCHEME *inScheme, const TPMT_TK_HASHCHECK *validation, TPMT_SIGNATURE **signature) { return tss2.Esys_Sign(esysContext, keyHandle, shandle1, shandle2, shandle3, digest, inScheme, validation, signature); }
TSS2_RC ck_Esys_ECDH_ZGen(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_ECC_POINT *inPoint, TPM2B_ECC_POINT **outPoint) { return tss2.Esys_ECDH_ZGen(esysContext, keyHandle, shandle1, shandle2, shandle3, inPoint, outPoint); }
TSS2_RC ck_Esys_NV_DefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_AUTH *auth, const TPM2B_NV_PUBLIC *publicInfo, ESYS_TR *nvHandle) { return tss2.Esys_NV_DefineSpace(esysContext, authHandle, shandle1, shandle2, shandle3, auth, publicInfo, nvHandle); }
TSS2_RC ck_Esys_NV_Increment(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3) { return tss2.Esys_NV_Increment(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3); }
TSS2_RC ck_Esys_NV_UndefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3) { return tss2.Esys_NV_UndefineSpace(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3); }
TSS2_RC ck_Esys_NV_Read(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, UINT16 size, UINT16 offset, TPM2B_MAX_NV_BUFFER **data) { return tss2.Esys_NV_Read(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3, size, offset, data); }
TSS2_RC ck_Esys_NV_ReadPublic(ESYS_CONTEXT *esysContext, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2B_NV_PUBLIC **nvPublic, TPM2B_NAME **nvName) { return tss2.Esys_NV_ReadPublic(esysContext, nvIndex, shandle1, shandle2, shandle3, nvPublic, nvName); }
TSS2_RC ck_Esys_DictionaryAttackParameters(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, UINT32 newMaxTries, UINT32 newRecoveryTime, UINT32 lockoutRecovery) { return tss2.Esys_DictionaryAttackParameters(esysContext, lockHandle, shandle1, shandle2, shandle3, newMaxTries, newRecoveryTime, lockoutRecovery); }
TSS2_RC ck_Esys_DictionaryAttackLockReset(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3) { return tss2.Esys_DictionaryAttackLockReset(esysContext, lockHandle, shandle1, shandle2, shandle3); }
TSS2_RC ck_Tss2_MU_TPM2B_PUBLIC_Marshal(TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset) { return tss2.Tss2_MU_TPM2B_PUBLIC_Marshal(src, buffer, buffer_size, offset); }
TSS2_RC ck_Tss2_MU_TPM2B_PUBLIC_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PUBLIC *dest) { return tss2.Tss2_MU_TPM2B_PUBLIC_Unmarshal(buffer, buffer_size, offset, dest); }
TSS2_RC ck_Tss2_MU_TPM2B_PRIVATE_Marshal(TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size, size_t *offset) { return tss2.Tss2_MU_TPM2B_PRIVATE_Marshal(src, buffer, buffer_size, offset); }
TSS2_RC ck_Tss2_MU_TPM2B_PRIVATE_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PRIVATE *dest) { return tss2.Tss2_MU_TPM2B_PRIVATE_Unmarshal(buffer, buffer_size, offset, dest); }
