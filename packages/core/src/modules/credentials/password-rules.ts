import { KithError } from "../../domain/errors.js";
import { MIN_PASSWORD_LENGTH } from "../accounts/account-service.js";
import { MAX_PASSWORD_LENGTH } from "../registration/registration-service.js";

/** Refuses a new password outside the lengths sign-up accepts (422, with the field). */
export function checkNewPassword(password: string, field = "newPassword"): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new KithError("credentials.invalid_password", {
      message: `The password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
      details: [{ field, message: `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long` }],
    });
  }
}
