import "./styles/pico.scss";
import "./styles/app.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/app";
import { connectApiClient, loadSession } from "./lib/auth";
import { startPageViews } from "./lib/page-views";
import { readPublicSettings } from "./lib/public-settings";
import { applyTheme } from "./lib/theme";

applyTheme();
connectApiClient();
void loadSession();

// Third parties only when the server names them, each in its own chunk.
const settings = readPublicSettings();
if (settings.analytics) void import("./lib/analytics").then((m) => m.startAnalytics(settings.analytics!));
if (settings.chat) void import("./lib/chat").then((m) => m.startChat(settings.chat!));
// The first-party counter is a few lines: in the main script, not a request of its own.
if (settings.pageViews) startPageViews();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
