import { Link } from "react-router";
import { paths } from "../config/paths";

export function CtaBanner() {
  return (
    <section className="cta-banner">
      <h2>Ready to get started?</h2>
      <Link to={paths.pricing.href()} role="button">
        Get Started
      </Link>
    </section>
  );
}
