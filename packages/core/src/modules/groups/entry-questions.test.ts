import { describe, expect, it } from "vitest";
import { type Question, answerProblems, questionProblems } from "./entry-questions.js";

const text: Question = { id: "q1", question: "Why?", kind: "text", required: true, options: [], expected: null };
const single: Question = { id: "q2", question: "Colour?", kind: "single_choice", required: false, options: ["red", "blue"], expected: null };
const rules: Question = {
  id: "q3",
  question: "Rules",
  kind: "multiple_choice",
  required: true,
  options: ["I accept", "I read them", "Other"],
  expected: ["I accept", "I read them"],
};
const gate: Question = { id: "q4", question: "Adult?", kind: "single_choice", required: true, options: ["yes", "no"], expected: ["yes"] };

const codes = (questions: readonly Question[], answers: Parameters<typeof answerProblems>[1]) =>
  Object.fromEntries(answerProblems(questions, answers).map((problem) => [problem.field, problem.code]));

describe("entry questions", () => {
  it("accepts well-formed questions and names the field of each problem", () => {
    expect(questionProblems([text, single, rules, gate])).toEqual([]);
    const fields = questionProblems([
      { ...single, options: ["only"] },
      { ...rules, expected: ["Nope"] },
      { ...text, options: ["a", "b"], expected: ["a"] },
      { ...rules, expected: [] },
    ]).map((problem) => problem.field);
    expect(fields).toEqual(["questions.0.options", "questions.1.expected", "questions.2.options", "questions.2.expected", "questions.3.expected"]);
  });

  it("lets in answers that answer every required question as expected; optional ones may be left out", () => {
    expect(
      answerProblems(
        [text, single, rules, gate],
        [
          { questionId: "q1", text: "Because" },
          { questionId: "q3", choices: ["I read them", "I accept", "Other"] },
          { questionId: "q4", choices: ["yes"] },
        ],
      ),
    ).toEqual([]);
  });

  it("refuses missing, unexpected, foreign and ill-kinded answers, one problem a question", () => {
    expect(
      codes(
        [text, single, rules, gate],
        [
          { questionId: "q1", text: "   " },
          { questionId: "q2", choices: ["red", "red"] },
          { questionId: "q3", choices: ["I accept"] },
          { questionId: "q4", choices: ["no"] },
          { questionId: "q9", text: "?" },
        ],
      ),
    ).toEqual({
      "answers.q1": "required",
      "answers.q2": "repeated",
      "answers.q3": "unexpected",
      "answers.q4": "unexpected",
      "answers.q9": "unknown_question",
    });
    expect(codes([text, gate], [{ questionId: "q1", choices: ["x"] }, { questionId: "q4", text: "yes" }])).toEqual({
      "answers.q1": "wrong_kind",
      "answers.q4": "wrong_kind",
    });
    expect(codes([single], [{ questionId: "q2", choices: ["red", "blue"] }])).toEqual({ "answers.q2": "one_choice" });
    expect(codes([single], [{ questionId: "q2", choices: ["green"] }])).toEqual({ "answers.q2": "not_an_option" });
    expect(codes([text], [{ questionId: "q1", text: "a" }, { questionId: "q1", text: "b" }])).toEqual({ answers: "repeated" });
  });
});
