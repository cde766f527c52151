import { useSignals } from "@preact/signals-react/runtime";
import { lazy, Suspense, useState } from "react";
import { Link } from "react-router";
import { paths } from "../config/paths";
import { user } from "../lib/auth";
import { MenuIcon } from "./icons";
import { Logo } from "./logo";
import { AccountLinks, PageLinks } from "./nav-links";
import { ThemeToggle } from "./theme-toggle";

/** Sign in and Sign up, or the account menu with the user's name. */
function AccountMenu() {
  useSignals();
  const [open, setOpen] = useState(false);

  if (!user.value) {
    return (
      <span className="sign-in">
        <Link to={paths.auth.href("signin")}>Sign in</Link>
        <Link to={paths.auth.href("signup")} className="sign-up">
          Sign up
        </Link>
      </span>
    );
  }
  return (
    <details className="dropdown" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{user.value.name || "Account"}</summary>
      <ul dir="rtl">
        <AccountLinks onDone={() => setOpen(false)} />
      </ul>
    </details>
  );
}

// The drawer's code arrives when it is first opened: the home page does not pay for it.
const Drawer = lazy(() => import("./drawer"));

export function Header() {
  const [drawerOpen, setDrawerOpen] = useState(false);

  return (
    <header className="site-header">
      <nav className="container" aria-label="Main">
        <ul>
          <li>
            <Link to={paths.home.href()} className="logo" aria-label="Sendlater home">
              <Logo />
            </Link>
          </li>
        </ul>
        <ul className="page-nav wide-only">
          <PageLinks onDone={() => undefined} />
        </ul>
        <ul className="account-nav">
          <li className="wide-only">
            <AccountMenu />
          </li>
          <li>
            <ThemeToggle />
          </li>
          <li className="narrow-only">
            <button
              type="button"
              className="outline secondary icon-button"
              aria-label="Open menu"
              aria-expanded={drawerOpen}
              aria-haspopup="dialog"
              onClick={() => setDrawerOpen(true)}
            >
              <MenuIcon />
            </button>
          </li>
        </ul>
      </nav>
      {drawerOpen && (
        <Suspense>
          <Drawer onClose={() => setDrawerOpen(false)} />
        </Suspense>
      )}
    </header>
  );
}
