import { NavLink } from "react-router";
import { paramTitle } from "../../../config/pages";
import { paths, type LegalSection } from "../../../config/paths";

const sections: LegalSection[] = ["terms-of-service", "privacy-policy"];

export function LegalPage({ section }: { section: LegalSection }) {
  return (
    <article className="legal">
      <nav aria-label="Legal">
        <ul>
          {sections.map((item) => (
            <li key={item}>
              <NavLink to={paths.legal.href(item)}>{paramTitle("legal", item)}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <h1>{paramTitle("legal", section)}</h1>
      <p>
        <small>Last updated October 5th, 2021</small>
      </p>
      <p>
        Lorem ipsum dolor sit amet, consectetur adipiscing elit. Integer nec odio. Praesent libero. Sed cursus ante dapibus
        diam. Sed nisi. Nulla quis sem at nibh elementum imperdiet. Duis sagittis ipsum. Praesent mauris.
      </p>
      <p>
        Fusce nec tellus sed augue semper porta. Mauris massa. Vestibulum lacinia arcu eget nulla. Class aptent taciti
        sociosqu ad litora torquent per conubia nostra, per inceptos himenaeos.
      </p>
      <p>
        Curabitur sodales ligula in libero. Sed dignissim lacinia nunc. Curabitur tortor. Pellentesque nibh. Aenean quam. In
        scelerisque sem at dolor. Maecenas mattis.
      </p>
    </article>
  );
}
