import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "react-router";
import heroDark from "../../../assets/hero-dark.svg?no-inline";
import heroLight from "../../../assets/hero-light.svg?no-inline";
import { CtaBanner } from "../../../components/cta-banner";
import { StatsStrip } from "../../../components/stats-strip";
import { paths } from "../../../config/paths";
import { useHydrated } from "../../../lib/hydrated";
import { readPublicSettings } from "../../../lib/public-settings";
import { theme } from "../../../lib/theme";

const steps = [
  {
    title: "Create",
    text: "Write a letter or important information, and choose who receives it and when: in 1, 6 or 12 months.",
  },
  {
    title: "Secure",
    text: "Your message is stored encrypted and stays private until the day it is delivered.",
  },
  {
    title: "Postpone",
    text: "We email you a reminder 10 days before delivery. One click, or a change in your dashboard, postpones it.",
  },
  {
    title: "Deliver",
    text: "If you can no longer postpone it, your message is emailed to the recipient automatically.",
  },
];

// The shipped examples, not real customers: shown until the operator sets site.testimonials.
const exampleTestimonials = [
  { quote: "I finally wrote down everything my family needs to know. It feels good knowing it will reach them.", name: "Sarah Kline", role: "Teacher" },
  { quote: "Postponing takes one click from the reminder email. I barely notice it, and that is the point.", name: "Marco Bellini", role: "Engineer" },
  { quote: "A simple idea done well. I keep the access details for our business in a message for my partner.", name: "Amira Haddad", role: "Founder" },
];

export function HomePage() {
  useSignals();
  // The prerendered HTML is light (lib/hydrated.ts).
  const dark = useHydrated() && theme.value === "dark";
  const testimonials = readPublicSettings().site?.testimonials ?? exampleTestimonials;
  return (
    <>
      <section className="hero home-hero">
        <div>
          <h1>Send important messages when the time is right!</h1>
          <p className="lead">
            Write the letter, the passwords or the words you have been saving. We keep them sealed and deliver them on the
            day you choose, unless you postpone.
          </p>
          <p className="hero-actions">
            <Link to={paths.pricing.href()} role="button">
              Get Started
            </Link>
            <Link to={paths.faq.href()} className="secondary">
              How it works
            </Link>
          </p>
        </div>
        <img
          className="hero-art"
          src={dark ? heroDark : heroLight}
          alt=""
          width={480}
          height={320}
        />
      </section>

      <section>
        <h2 className="section-title">All the steps you need to secure your message</h2>
        <div className="cards">
          {steps.map((step, index) => (
            <article key={step.title}>
              <h3>
                <span className="step-number" aria-hidden="true">
                  {index + 1}
                </span>
                {step.title}
              </h3>
              <p>{step.text}</p>
            </article>
          ))}
        </div>
      </section>

      <StatsStrip />

      {testimonials.length > 0 && (
      <section>
        <h2 className="section-title">Here's what people are saying</h2>
        <div className="cards">
          {testimonials.map((testimonial) => (
            <article key={testimonial.name}>
              <blockquote>
                {testimonial.quote}
                <footer>
                  <cite>
                    {testimonial.role ? `${testimonial.name}, ${testimonial.role}` : testimonial.name}
                  </cite>
                </footer>
              </blockquote>
            </article>
          ))}
        </div>
      </section>
      )}

      <CtaBanner />
    </>
  );
}
