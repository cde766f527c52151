import { CtaBanner } from "../../../components/cta-banner";

// Template placeholders.
const questions = [
  {
    question: "How does Sendlater work?",
    answer: "You write a message and choose when it is delivered: in 1, 6 or 12 months. We remind you 10 days before, and you can postpone it.",
  },
  {
    question: "What happens if I don't postpone my message?",
    answer: "It is emailed to the recipient automatically on its delivery date.",
  },
  {
    question: "Can I edit a message after creating it?",
    answer: "Yes. You can change the title, recipient, text and delivery interval from your dashboard at any time.",
  },
  {
    question: "Is my message private?",
    answer: "Messages are stored encrypted, and only you can see them until they are delivered.",
  },
  {
    question: "Can I cancel my subscription?",
    answer: "Yes. You can manage or cancel your plan from the billing settings at any time.",
  },
];

export function FaqPage() {
  return (
    <>
      <section>
        <h1>Frequently Asked Questions</h1>
        {questions.map((item) => (
          <details key={item.question}>
            <summary>{item.question}</summary>
            <p>{item.answer}</p>
          </details>
        ))}
      </section>

      <CtaBanner />
    </>
  );
}
