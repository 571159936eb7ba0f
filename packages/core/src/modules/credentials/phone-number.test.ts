import { describe, expect, it } from "vitest";
import { isKithError } from "../../domain/errors.js";
import { normalizePhoneNumber } from "./phone-number.js";

async function refusal(input: string): Promise<string | null> {
  try {
    await normalizePhoneNumber(input);
    return null;
  } catch (error) {
    return isKithError(error) ? error.code : "not a KithError";
  }
}

describe("normalizePhoneNumber", () => {
  it.each([
    ["+1 (415) 555-2671", "+14155552671"],
    ["  +14155552671  ", "+14155552671"],
    ["+44 20 7946 0958", "+442079460958"],
    ["+44 (0)20 7946 0958", "+442079460958"],
    ["+33 6 12 34 56 78", "+33612345678"],
    ["+33.6.12.34.56.78", "+33612345678"],
    ["+49 30 901820", "+4930901820"],
  ])("writes %j as %j in E.164", async (input, expected) => {
    expect(await normalizePhoneNumber(input)).toBe(expected);
  });

  it.each([
    ["", "empty"],
    ["   ", "blank"],
    ["4155552671", "no country code: the server has no country to assume"],
    ["+1 555", "too short"],
    ["+1 415 555 2671 1234 5678", "too long"],
    ["+999 123456789", "no such country code"],
    ["+1 415 CALL ME", "letters"],
    [`+1${"5".repeat(60)}`, "absurdly long"],
  ])("refuses %j (%s) with phone.invalid", async (input) => {
    expect(await refusal(input)).toBe("phone.invalid");
  });
});
