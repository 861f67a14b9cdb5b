// The TPM 2.0 software stack's ESAPI (tpm2-tss: libtss2-esys, -tctildr, -mu, -rc), loaded on first use rather than
// linked, so a machine without a TPM or without libtss2 still runs every other part of the keychain (DESIGN §15).
// tss2_loader.c opens the libraries with dlopen in ck_tss2_load and defines each function KeychainTPM calls as a
// trampoline named ck_<function>: prefixed, so that the libraries' own calls between themselves never land in ours.
#ifndef CK_TSS2_H
#define CK_TSS2_H

#include <stddef.h>
#include "/usr/include/tss2/tss2_esys.h"
#include "/usr/include/tss2/tss2_mu.h"
#include "/usr/include/tss2/tss2_tctildr.h"

// Opens libtss2-esys.so.0, libtss2-tctildr.so.0 and libtss2-mu.so.0 (and libtss2-rc.so.0 when present) and resolves
// every function below, once per process (thread-safe). Returns 1 when they are all there, else 0 with the reason
// in `error`. No other function of this module may be called before it has returned 1.
int ck_tss2_load(char *error, size_t size);

// Tss2_RC_Decode's text for a response code, or NULL when libtss2-rc.so.0 is not installed.
const char *ck_Tss2_RC_Decode(TSS2_RC rc);

TSS2_RC ck_Tss2_TctiLdr_Initialize(const char *nameConf, TSS2_TCTI_CONTEXT **context);
void ck_Tss2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context);

TSS2_RC ck_Esys_Initialize(ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion);
void ck_Esys_Finalize(ESYS_CONTEXT **context);
void ck_Esys_Free(void *ptr);
TSS2_RC ck_Esys_TR_SetAuth(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue);
TSS2_RC ck_Esys_TR_Close(ESYS_CONTEXT *esysContext, ESYS_TR *rsrc_handle);
TSS2_RC ck_Esys_TR_FromTPMPublic(ESYS_CONTEXT *esysContext, TPM2_HANDLE tpm_handle, ESYS_TR optionalSession1,
                                 ESYS_TR optionalSession2, ESYS_TR optionalSession3, ESYS_TR *object);
TSS2_RC ck_Esys_StartAuthSession(ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1,
                                  ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller,
                                  TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash,
                                  ESYS_TR *sessionHandle);
TSS2_RC ck_Esys_TRSess_SetAttributes(ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags,
                                     TPMA_SESSION mask);
TSS2_RC ck_Esys_FlushContext(ESYS_CONTEXT *esysContext, ESYS_TR flushHandle);
TSS2_RC ck_Esys_CreatePrimary(ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                              ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive,
                              const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo,
                              const TPML_PCR_SELECTION *creationPCR, ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic,
                              TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash,
                              TPMT_TK_CREATION **creationTicket);
TSS2_RC ck_Esys_Create(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic,
                       const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR,
                       TPM2B_PRIVATE **outPrivate, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData,
                       TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket);
TSS2_RC ck_Esys_Load(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                     ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic,
                     ESYS_TR *objectHandle);
TSS2_RC ck_Esys_Unseal(ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData);
TSS2_RC ck_Esys_HMAC(ESYS_CONTEXT *esysContext, ESYS_TR handle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                     const TPM2B_MAX_BUFFER *buffer, TPMI_ALG_HASH hashAlg, TPM2B_DIGEST **outHMAC);
TSS2_RC ck_Esys_Sign(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                     ESYS_TR shandle3, const TPM2B_DIGEST *digest, const TPMT_SIG_SCHEME *inScheme,
                     const TPMT_TK_HASHCHECK *validation, TPMT_SIGNATURE **signature);
TSS2_RC ck_Esys_ECDH_ZGen(ESYS_CONTEXT *esysContext, ESYS_TR keyHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                          ESYS_TR shandle3, const TPM2B_ECC_POINT *inPoint, TPM2B_ECC_POINT **outPoint);
TSS2_RC ck_Esys_NV_DefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                               ESYS_TR shandle3, const TPM2B_AUTH *auth, const TPM2B_NV_PUBLIC *publicInfo,
                               ESYS_TR *nvHandle);
TSS2_RC ck_Esys_NV_Increment(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                             ESYS_TR shandle2, ESYS_TR shandle3);
TSS2_RC ck_Esys_NV_UndefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                                 ESYS_TR shandle2, ESYS_TR shandle3);
TSS2_RC ck_Esys_NV_Read(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                        ESYS_TR shandle2, ESYS_TR shandle3, UINT16 size, UINT16 offset, TPM2B_MAX_NV_BUFFER **data);
TSS2_RC ck_Esys_NV_ReadPublic(ESYS_CONTEXT *esysContext, ESYS_TR nvIndex, ESYS_TR shandle1, ESYS_TR shandle2,
                              ESYS_TR shandle3, TPM2B_NV_PUBLIC **nvPublic, TPM2B_NAME **nvName);
TSS2_RC ck_Esys_DictionaryAttackParameters(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1,
                                           ESYS_TR shandle2, ESYS_TR shandle3, UINT32 newMaxTries,
                                           UINT32 newRecoveryTime, UINT32 lockoutRecovery);
TSS2_RC ck_Esys_DictionaryAttackLockReset(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1,
                                          ESYS_TR shandle2, ESYS_TR shandle3);

TSS2_RC ck_Tss2_MU_TPM2B_PUBLIC_Marshal(TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size,
                                        size_t *offset);
TSS2_RC ck_Tss2_MU_TPM2B_PUBLIC_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                          TPM2B_PUBLIC *dest);
TSS2_RC ck_Tss2_MU_TPM2B_PRIVATE_Marshal(TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size,
                                         size_t *offset);
TSS2_RC ck_Tss2_MU_TPM2B_PRIVATE_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                           TPM2B_PRIVATE *dest);

#endif
