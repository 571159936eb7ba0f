import { KithError, isKithError } from "../../domain/errors.js";

/**
 * A phone number as people type it, validated and normalised to E.164.
 * Numbers must be international (`+` and a country code): the server has
 * no country of its own to assume.
 */
export async function normalizePhoneNumber(input: string): Promise<string> {
  const trimmed = input.trim();
  if (trimmed === "" || trimmed.length > 40) throw new KithError("phone.invalid");
  // The numbering plans of every country load with the first number, not with the server.
  const { parsePhoneNumberWithError } = await import("libphonenumber-js");
  try {
    const parsed = parsePhoneNumberWithError(trimmed);
    if (!parsed.isValid()) throw new KithError("phone.invalid");
    return parsed.number;
  } catch (error) {
    if (isKithError(error)) throw error;
    throw new KithError("phone.invalid", { cause: error });
  }
}
