/* status.c: the status and reason string tables: every code has a distinct name and a description, unknown codes are named as such. */
#include "testlib.h"

int main(void)
{
  static const sps_status statuses[] = {
#define SPS_X(name, value, text) name,
      SPS_STATUS_LIST(SPS_X)
#undef SPS_X
  };
  static const char *status_names[] = {
#define SPS_X(name, value, text) #name,
      SPS_STATUS_LIST(SPS_X)
#undef SPS_X
  };
  const int ns = (int)(sizeof statuses / sizeof statuses[0]);
  for (int a = 0; a < ns; a++) {
    const char *name = sps_status_name(statuses[a]), *text = sps_status_string(statuses[a]);
    int distinct = 1;
    for (int b = 0; b < ns; b++)
      if (b != a && (statuses[a] == statuses[b] || !strcmp(name, sps_status_name(statuses[b])) ||
                     !strcmp(text, sps_status_string(statuses[b]))))
        distinct = 0;
    sps_ok(!strcmp(name, status_names[a]) && *text && distinct,
           "status %d is %s, '%s', distinct from the others", (int)statuses[a], name, text);
  }
  int signs = statuses[0] == SPS_SUCCESS && SPS_SUCCESS == 0;
  for (int a = 1; a < ns; a++) signs = signs && statuses[a] < 0;
  sps_ok(signs, "SPS_SUCCESS is 0 and every other status is negative");
  sps_ok(!strcmp(sps_status_name((sps_status)-1000), "SPS_UNKNOWN_STATUS") &&
             !strcmp(sps_status_string((sps_status)-1000), "unknown status"),
         "an unknown status is named as unknown");

  static const sps_reason reasons[] = {
#define SPS_X(name, value, text) name,
      SPS_REASON_LIST(SPS_X)
#undef SPS_X
  };
  static const char *reason_names[] = {
#define SPS_X(name, value, text) #name,
      SPS_REASON_LIST(SPS_X)
#undef SPS_X
  };
  const int nr = (int)(sizeof reasons / sizeof reasons[0]);
  for (int a = 0; a < nr; a++) {
    const char *name = sps_reason_name(reasons[a]), *text = sps_reason_string(reasons[a]);
    int distinct = 1;
    for (int b = 0; b < nr; b++)
      if (b != a && (reasons[a] == reasons[b] || !strcmp(name, sps_reason_name(reasons[b])) ||
                     !strcmp(text, sps_reason_string(reasons[b]))))
        distinct = 0;
    sps_ok(!strcmp(name, reason_names[a]) && *text && distinct,
           "reason %d is %s, '%s', distinct from the others", (int)reasons[a], name, text);
  }
  sps_ok(!strcmp(sps_reason_name((sps_reason)1000), "SPS_UNKNOWN_REASON") &&
             !strcmp(sps_reason_string((sps_reason)1000), "unknown reason"),
         "an unknown reason is named as unknown");
  return sps_done();
}
