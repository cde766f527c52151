import { CtaBanner } from "../../../components/cta-banner";
import { StatsStrip } from "../../../components/stats-strip";

// Placeholders for the real team (SPEC.md: the about and team texts are template placeholders).
const team = [
  {
    name: "John Smith",
    role: "Software Engineer",
    bio: "John builds the service that keeps your messages safe and makes sure they arrive on time.",
  },
];

export function AboutPage() {
  return (
    <>
      <section className="hero">
        <h1>About</h1>
        <p className="lead">We help you make money</p>
        <p>
          Sendlater started with a simple worry: the things that matter most are often written down nowhere, or somewhere
          nobody will look. We built a quiet service for the letters, instructions and passwords that should arrive later,
          and only if you do not stop them. Your messages are encrypted at rest, you are reminded before anything is sent,
          and one click keeps a message waiting for another season.
        </p>
      </section>

      <StatsStrip />

      <section>
        <h2 className="section-title">Meet the Team</h2>
        <div className="cards">
          {team.map((member) => (
            <article key={member.name} className="team-card">
              <span className="avatar" aria-hidden="true">
                {member.name
                  .split(" ")
                  .map((part) => part[0])
                  .join("")}
              </span>
              <h3>{member.name}</h3>
              <p>
                <small>{member.role}</small>
              </p>
              <p>{member.bio}</p>
            </article>
          ))}
        </div>
      </section>

      <CtaBanner />
    </>
  );
}
