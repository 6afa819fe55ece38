/* error.c: status and reason strings from their X-macro lists, and the last-error message of a
 * context. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The message of a failed sps_context_create(), which has no context to hold it. */
static _Thread_local char create_errmsg[SPS_ERRMSG_LEN];

const char *sps_status_string(sps_status status)
{
  switch (status) {
#define SPS_X_CASE(name, value, text)                                                              \
  case name:                                                                                       \
    return text;
    SPS_STATUS_LIST(SPS_X_CASE)
#undef SPS_X_CASE
  }
  return "unknown status";
}

const char *sps_status_name(sps_status status)
{
  switch (status) {
#define SPS_X_CASE(name, value, text)                                                              \
  case name:                                                                                       \
    return #name;
    SPS_STATUS_LIST(SPS_X_CASE)
#undef SPS_X_CASE
  }
  return "SPS_UNKNOWN_STATUS";
}

const char *sps_reason_string(sps_reason reason)
{
  switch (reason) {
#define SPS_X_CASE(name, value, text)                                                              \
  case name:                                                                                       \
    return text;
    SPS_REASON_LIST(SPS_X_CASE)
#undef SPS_X_CASE
  }
  return "unknown reason";
}

const char *sps_reason_name(sps_reason reason)
{
  switch (reason) {
#define SPS_X_CASE(name, value, text)                                                              \
  case name:                                                                                       \
    return #name;
    SPS_REASON_LIST(SPS_X_CASE)
#undef SPS_X_CASE
  }
  return "SPS_UNKNOWN_REASON";
}

sps_status sps_error_vset(sps_context *ctx, sps_status code, const char *fmt, va_list ap)
{
  char *buf = ctx ? ctx->errmsg : create_errmsg;
  vsnprintf(buf, SPS_ERRMSG_LEN, fmt, ap);
  return code;
}

sps_status sps_error_set(sps_context *ctx, sps_status code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  sps_error_vset(ctx, code, fmt, ap);
  va_end(ap);
  return code;
}

const char *sps_context_last_error(const sps_context *ctx)
{
  return ctx ? ctx->errmsg : "no context (NULL)";
}

const char *sps_context_create_error(void)
{
  return create_errmsg;
}
