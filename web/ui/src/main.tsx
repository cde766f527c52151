import "./styles/pico.scss";
import "./styles/app.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/app";
import { connectApiClient, loadSession } from "./lib/auth";
import { applyTheme } from "./lib/theme";

applyTheme();
connectApiClient();
void loadSession();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
