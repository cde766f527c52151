import { CtaBanner } from "../../../components/cta-banner";
import { StatsStrip } from "../../../components/stats-strip";

// Template placeholders.
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
          Lorem ipsum dolor sit amet, consectetur adipiscing elit. Integer nec odio. Praesent libero. Sed cursus ante dapibus
          diam. Sed nisi. Nulla quis sem at nibh elementum imperdiet.
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
