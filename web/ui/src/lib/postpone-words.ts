// What every front end says of a postpone (core/message_postpone_rule.go: PostponeNoEffect, PostponedTo;
// web's TestPostponeWordsMatchCore holds these to them), the date as each front end shows dates.

/** Where a postpone would not move the date: the disabled button's reason. */
export const postponeNoEffect = (date: string) => `Postponing today would not move the date: it is already ${date}.`;

/** After a postpone moved the date (SPEC.md's toast, and to when). */
export const postponedTo = (date: string) => `The message is postponed! It will be delivered on ${date}.`;

/** Whether a postpone now would move nothing, by the server's postponeBlockedUntil (ms). */
export const postponeBlocked = (until: number | undefined, now = Date.now()) => until !== undefined && now < until;
