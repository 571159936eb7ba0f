import { defineErrorCodes } from "../../domain/error-catalog.js";

/** The refusals of imports. Jobs are `im_…`, the core's `importJob` id kind. */
export const importErrors = defineErrorCodes({
  "import.not_found": { status: 404, message: "Record not found" },
  "import.not_pending": { status: 409, message: "Only a job in PENDING can be started" },
  "import.too_many_active": { status: 409, message: "Too many imports are waiting or running; start or wait for those first" },
  "import.invalid_file": { status: 422, message: "The file is not a CSV file of the chosen kind" },
  "import.empty_file": { status: 422, message: "The file holds no rows" },
  "import.too_many_rows": { status: 422, message: "The file holds more than 20000 rows" },
  "import.file_too_large": { status: 413, message: "The file is larger than 20 MB" },
  "export.not_found": { status: 404, message: "Record not found" },
});
