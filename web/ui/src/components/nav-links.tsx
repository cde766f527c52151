import { useSignals } from "@preact/signals-react/runtime";
import { Link, NavLink, useNavigate } from "react-router";
import { paths } from "../config/paths";
import { signOut, user } from "../lib/auth";
import { showToast } from "../lib/toasts";

const pageLinks = [
  { label: "Pricing", to: paths.pricing.href() },
  { label: "FAQ", to: paths.faq.href() },
  { label: "About", to: paths.about.href() },
];

export function PageLinks({ onDone }: { onDone: () => void }) {
  return pageLinks.map((link) => (
    <li key={link.to}>
      <NavLink to={link.to} onClick={onDone}>
        {link.label}
      </NavLink>
    </li>
  ));
}

/**
 * The account links, shared by the wide-screen menu and the small-screen drawer. SPEC.md lists
 * "Signout" among them unquoted; issue 28 asks for the words "Sign out".
 */
export function AccountLinks({ onDone }: { onDone: () => void }) {
  useSignals();
  const navigate = useNavigate();

  if (!user.value) {
    return (
      <>
        <li>
          <Link to={paths.auth.href("signin")} onClick={onDone}>
            Sign in
          </Link>
        </li>
        <li>
          <Link to={paths.auth.href("signup")} onClick={onDone}>
            Sign up
          </Link>
        </li>
      </>
    );
  }

  const handleSignOut = () => {
    onDone();
    signOut()
      .catch((error: Error) => showToast(error.message, { kind: "error" }))
      .finally(() => navigate(paths.home.href()));
  };

  return (
    <>
      <li>
        <Link to={paths.dashboard.href()} onClick={onDone}>
          Dashboard
        </Link>
      </li>
      <li>
        <Link to={paths.settings.href("general")} onClick={onDone}>
          Settings
        </Link>
      </li>
      <li>
        <button type="button" className="link-button" onClick={handleSignOut}>
          Sign out
        </button>
      </li>
    </>
  );
}
