/**
 * The questions a policy's `ask` puts to the person (decision 0360): the service-wide broker the
 * bridge asks through and the person's surfaces answer.
 *
 * @module
 */

export {
  type AgentAsking,
  type Asking,
  MAX_REMEMBERED,
  MAX_WAITING,
  NoSuchGrant,
  NoSuchQuestion,
  NotThisAnswer,
  type QuestionListener,
  Questions,
  type Remembered,
  type Reply,
} from "./questions.ts";
