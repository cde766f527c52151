import { readPublicSettings } from "../lib/public-settings";

// The shipped example figures (SPEC.md's placeholders), shown until the operator sets site.stats.
const exampleStats = [
  { value: "12,480", label: "Users" },
  { value: "3,215", label: "Messages delivered" },
  { value: "8,760", label: "Messages waiting" },
];

export function StatsStrip() {
  const site = readPublicSettings().site ?? {};
  const stats = site.stats === "off" ? [] : site.stats === "live" ? (site.figures ?? []) : exampleStats;
  // Off, or live with every figure below the server's minimum: no strip.
  if (stats.length === 0) return null;
  return (
    <section className="stats" aria-label="Statistics">
      {stats.map((stat) => (
        <div key={stat.label}>
          <strong>{stat.value}</strong>
          <span>{stat.label}</span>
        </div>
      ))}
    </section>
  );
}
