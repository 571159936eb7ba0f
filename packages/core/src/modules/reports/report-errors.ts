import { defineErrorCodes } from "../../domain/error-catalog.js";

/**
 * The refusals of reports, one code each. A report outside the scope the
 * request names, or one a reporter did not file, is `report.not_found`.
 */
export const reportErrors = defineErrorCodes({
  "report.not_found": { status: 404, message: "Report not found" },
  "report.target_not_found": { status: 404, message: "The reported status, account or group was not found" },
  "report.secret_group": { status: 403, message: "A secret group can be reported by its members only" },
  "report.self": { status: 422, message: "You cannot report yourself" },
  "report.statuses_invalid": { status: 422, message: "The attached statuses must be visible statuses of the reported account" },
  "report.assign_closed": { status: 409, message: "A resolved or dismissed report cannot be assigned; reopen it first" },
  "report.not_closed": { status: 409, message: "Only a resolved or dismissed report can be reopened" },
  "report.target_has_open_report": {
    status: 409,
    message: "The reported subject has another open report; this one cannot be reopened beside it",
  },
  "report.comment_closed": { status: 409, message: "The report was resolved or dismissed; its comments are kept as they were" },
  "report.assignee_ineligible": {
    status: 422,
    message: "That user cannot be assigned reports here: it must manage reports in the report's scope and be neither suspended nor limited",
  },
  "report.note_index_invalid": { status: 422, message: "There is no note at that index" },
  "report.rule_unknown": { status: 422, message: "A cited rule is not one of the server's rules" },
});
