import { CtaBanner } from "../../../components/cta-banner";
import { StatsStrip } from "../../../components/stats-strip";
import { readPublicSettings } from "../../../lib/public-settings";

// The shipped examples (SPEC.md: the about and team texts are template placeholders), shown until
// the operator sets site.team, site.headline and site.about.
const exampleTeam: { name: string; role?: string; bio?: string }[] = [
  {
    name: "John Smith",
    role: "Software Engineer",
    bio: "John builds the service that keeps your messages safe and makes sure they arrive on time.",
  },
];

export function AboutPage() {
  const site = readPublicSettings().site ?? {};
  const team = site.team ?? exampleTeam;
  return (
    <>
      <section className="hero">
        <h1>About</h1>
        <p className="lead">{site.headline ?? "We help you make money"}</p>
        {site.about ? (
          site.about.split(/\n\s*\n/).map((paragraph) => <p key={paragraph}>{paragraph}</p>)
        ) : (
        <p>
          Sendlater started with a simple worry: the things that matter most are often written down nowhere, or somewhere
          nobody will look. We built a quiet service for the letters, instructions and passwords that should arrive later,
          and only if you do not stop them. Your messages are encrypted at rest, you are reminded before anything is sent,
          and one click keeps a message waiting for another season.
        </p>
        )}
      </section>

      <StatsStrip />

      {team.length > 0 && (
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
              {member.role && (
                <p>
                  <small>{member.role}</small>
                </p>
              )}
              {member.bio && <p>{member.bio}</p>}
            </article>
          ))}
        </div>
      </section>
      )}

      <CtaBanner />
    </>
  );
}
