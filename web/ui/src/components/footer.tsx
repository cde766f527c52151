import { Link } from "react-router";
import { paths } from "../config/paths";
import { site } from "../config/site";

const links = [
  { label: "Pricing", to: paths.pricing.href() },
  { label: "FAQ", to: paths.faq.href() },
  { label: "About", to: paths.about.href() },
  { label: "Contact", to: paths.contact.href() },
  { label: "Terms", to: paths.legal.href("terms-of-service") },
  { label: "Privacy", to: paths.legal.href("privacy-policy") },
];

export function Footer() {
  return (
    <footer className="container site-footer">
      <nav aria-label="Footer">
        <ul>
          {links.map((link) => (
            <li key={link.to}>
              <Link to={link.to} className="secondary">
                {link.label}
              </Link>
            </li>
          ))}
        </ul>
        <ul>
          {site.social.map((social) => (
            <li key={social.href}>
              <a href={social.href} className="secondary" target="_blank" rel="noopener noreferrer">
                {social.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p>
        {/* The prerendered HTML has the build's year: kept while hydrating, this year from the next render. */}
        <small suppressHydrationWarning>
          © {new Date().getFullYear()} {site.name}
        </small>
      </p>
    </footer>
  );
}
