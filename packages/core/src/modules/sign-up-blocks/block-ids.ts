import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

export const signUpBlockIds = defineIdKinds({ canonicalEmailBlock: "ce", emailDomainBlock: "eb", ipBlock: "ib" });

export const signUpBlockErrors = defineErrorCodes({
  "canonical_email_block.not_found": { status: 404, message: "Canonical email block not found" },
  "canonical_email_block.exists": { status: 422, message: "That address is blocked already" },
  "email_domain_block.not_found": { status: 404, message: "Email domain block not found" },
  "email_domain_block.exists": { status: 422, message: "That email domain is blocked already" },
  "ip_block.not_found": { status: 404, message: "IP block not found" },
  "ip_block.exists": { status: 422, message: "That IP range is blocked already" },
});
