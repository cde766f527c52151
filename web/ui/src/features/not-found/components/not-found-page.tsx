import { Link } from "react-router";
import { paths } from "../../../config/paths";

export function NotFoundPage({ path }: { path: string }) {
  return (
    <section className="hero">
      <h1>The page {path} could not be found</h1>
      <Link to={paths.home.href()}>Go to the home page</Link>
    </section>
  );
}
