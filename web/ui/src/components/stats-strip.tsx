// Fixed placeholder figures: the product does not publish live numbers.
const stats = [
  { value: "12,480", label: "Users" },
  { value: "3,215", label: "Messages delivered" },
  { value: "8,760", label: "Messages waiting" },
];

export function StatsStrip() {
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
