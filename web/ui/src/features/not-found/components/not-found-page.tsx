import { Link } from "react-router";
import { paths } from "../../../config/paths";

/** The 404 page (SPEC.md section 2): what happened, one way on, and the usual places. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <section className="hero next-step">
      <p className="eyebrow">404</p>
      <h1>The page {path} could not be found</h1>
      <p className="lead">The link may be old, or mistyped. Your messages are safe either way.</p>
      <p>
        <Link to={paths.home.href()} role="button">
          Go to the home page
        </Link>
      </p>
      <p className="muted">
        Or see <Link to={paths.pricing.href()}>pricing</Link>, the <Link to={paths.faq.href()}>FAQ</Link>, or{" "}
        <Link to={paths.contact.href()}>contact us</Link>.
      </p>
    </section>
  );
}
