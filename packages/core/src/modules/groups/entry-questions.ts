import type { ErrorDetail } from "../../domain/errors.js";
import type { QuestionKind } from "./group-entities.js";

/** A question as a group's managers write it. */
export interface QuestionInput {
  readonly question: string;
  readonly kind: QuestionKind;
  readonly required: boolean;
  readonly options: readonly string[];
  readonly expected: readonly string[] | null;
}

/** A question as stored, with its id. */
export interface Question extends QuestionInput {
  readonly id: string;
}

/** One answer as an applicant gives it: text for a text question, choices for a choice question. */
export interface AnswerInput {
  readonly questionId: string;
  readonly text?: string;
  readonly choices?: readonly string[];
}

export const MAX_QUESTIONS = 20;
export const MAX_OPTIONS = 20;

/**
 * What is wrong with the questions, one detail a field; empty when nothing.
 * A text question has no choices; a choice question has 2 to 20 distinct
 * ones; `expected`, for a choice question only, names some of them: the
 * answer must be one of them (single choice) or hold them all (multiple
 * choice), as "I accept the rules" must be ticked.
 */
export function questionProblems(questions: readonly QuestionInput[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (questions.length > MAX_QUESTIONS) problems.push({ field: "questions", message: `At most ${MAX_QUESTIONS} questions` });
  questions.forEach((question, index) => {
    const at = (field: string) => `questions.${index}.${field}`;
    if (question.kind === "text") {
      if (question.options.length > 0) problems.push({ field: at("options"), message: "A text question has no options" });
      if (question.expected !== null) problems.push({ field: at("expected"), message: "A text question has no expected answers" });
      return;
    }
    const options = new Set(question.options);
    if (question.options.length < 2 || question.options.length > MAX_OPTIONS) {
      problems.push({ field: at("options"), message: `A choice question has 2 to ${MAX_OPTIONS} options` });
    }
    if (options.size !== question.options.length) problems.push({ field: at("options"), message: "The options must differ" });
    if (question.expected !== null) {
      if (question.expected.length === 0) problems.push({ field: at("expected"), message: "Give expected answers, or none at all (null)" });
      if (question.expected.some((answer) => !options.has(answer))) {
        problems.push({ field: at("expected"), message: "Expected answers must be among the options" });
      }
    }
  });
  return problems;
}

/**
 * What is wrong with the answers, one detail a question (`answers.<id>`);
 * empty when they let the applicant in. A required question must be
 * answered; an answer must fit its question's kind and options, and hold
 * what the question expects.
 */
export function answerProblems(questions: readonly Question[], answers: readonly AnswerInput[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const byId = new Map(answers.map((answer) => [answer.questionId, answer]));
  const known = new Set(questions.map((question) => question.id));
  for (const answer of answers) {
    if (!known.has(answer.questionId)) {
      problems.push({ field: `answers.${answer.questionId}`, message: "No such question in this group", code: "unknown_question" });
    }
  }
  if (byId.size !== answers.length) problems.push({ field: "answers", message: "Answer each question once", code: "repeated" });
  for (const question of questions) {
    const problem = answerProblem(question, byId.get(question.id));
    if (problem) problems.push({ field: `answers.${question.id}`, ...problem });
  }
  return problems;
}

function answerProblem(question: Question, answer: AnswerInput | undefined): { message: string; code: string } | null {
  const text = answer?.text?.trim() ?? "";
  const choices = answer?.choices ?? [];
  if (question.kind === "text" && answer?.choices !== undefined) return { message: "Answer a text question with text", code: "wrong_kind" };
  if (question.kind !== "text" && answer?.text !== undefined) return { message: "Answer a choice question with choices", code: "wrong_kind" };
  const answered = question.kind === "text" ? text.length > 0 : choices.length > 0;
  if (!answered) return question.required ? { message: "This question must be answered", code: "required" } : null;
  if (question.kind === "text") return null;
  const options = new Set(question.options);
  if (choices.some((choice) => !options.has(choice))) return { message: "Choose among the question's options", code: "not_an_option" };
  if (new Set(choices).size !== choices.length) return { message: "Choose each option once", code: "repeated" };
  if (question.kind === "single_choice" && choices.length !== 1) return { message: "Choose exactly one option", code: "one_choice" };
  if (question.expected !== null) {
    const chosen = new Set(choices);
    const accepted =
      question.kind === "single_choice"
        ? question.expected.includes(choices[0] ?? "")
        : question.expected.every((expected) => chosen.has(expected));
    if (!accepted) return { message: "This answer is not one the group accepts", code: "unexpected" };
  }
  return null;
}
