/* validate_report.h - print `slabsim validate`'s report (validate.h's
 * struct val_report, read only): the table, or with json the JSON object
 * docs/ describes, on out. */
#ifndef SLABSIM_VALIDATE_REPORT_H
#define SLABSIM_VALIDATE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "validate.h"

void val_report_print(FILE *out, const struct val_report *r, bool json);

#endif
