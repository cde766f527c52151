// The delivery email's salutation, as the server adds it (core.Salutation, docs/delivery.md):
// "Dear {name}," above the body unless the body opens with a greeting of its own. Keep the two in
// step: the words and the rule are the same.

const greetingWords = new Set([
  "dear", "dearest", "hi", "hello", "hey", "to", "my", "bonjour", "hallo", "liebe", "lieber", "querida", "querido", "cara", "caro",
]);

/** Whether body's first non-blank line is a greeting: a greeting word first, or the name (or its first word) and a comma. */
export function opensWithGreeting(name: string, body: string) {
  const line = body.replace(/\r/g, "\n").split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  if (line === "") return false;
  const first = line.split(/[^\p{L}]+/u).find((w) => w !== "");
  if (first && greetingWords.has(first.toLowerCase())) return true;
  const lower = line.toLowerCase();
  const full = name.trim().toLowerCase();
  if (full === "") return false;
  const given = full.split(/\s+/)[0];
  return lower.includes(`${full},`) || lower.includes(`${given},`);
}

/** The line the message dialog shows under the Message field. */
export function salutationNote(name: string, body: string) {
  if (opensWithGreeting(name, body)) return "Your greeting opens the email.";
  const salutation = name.trim() === "" ? "Hello," : `Dear ${name},`;
  return `We add “${salutation}” above your message unless it starts with a greeting.`;
}
