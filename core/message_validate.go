package core

import (
	"strings"
)

// Validate checks the input with the exact messages of SPEC.md section 5.
func (in *MessageInput) Validate() error {
	f := map[string]string{}
	validateTitle(f, in.Title)
	validateRecipients(f, in.list())
	checkFirstRecipient(f, in.Recipients, &in.Name, &in.Recipient)
	in.validateContent(f)
	validateWebhookURL(f, in.WebhookURL)
	if in.Interval != "" && !in.Interval.Valid() {
		f["interval"] = "Please choose an interval of 1M, 6M or 12M"
	}
	if k := in.IdempotencyKey; len(k) > MaxIdempotencyKeyLen || strings.IndexFunc(k, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		f["idempotencyKey"] = "The Idempotency-Key must be at most 255 printable ASCII characters"
	}
	return ValidationError(f)
}

// Validate checks the fields the update sets.
func (up *MessageUpdate) Validate() error {
	f := map[string]string{}
	if up.Title != nil {
		validateTitle(f, *up.Title)
	}
	if up.Recipients != nil {
		validateRecipients(f, *up.Recipients)
		checkFirstRecipient(f, *up.Recipients, up.Name, up.Recipient)
	} else {
		if up.Name != nil {
			validateName(f, *up.Name)
		}
		if up.Recipient != nil {
			validateRecipient(f, *up.Recipient)
		}
	}
	up.validateContent(f)
	if up.Interval != nil && !up.Interval.Valid() {
		f["interval"] = "Please choose an interval of 1M, 6M or 12M"
	}
	if up.WebhookURL != nil {
		validateWebhookURL(f, *up.WebhookURL)
	}
	return ValidationError(f)
}

// validateWebhookURL checks a webhook URL when one is given (empty: none).
// Where it may point is checked when it is called (private addresses).
func validateWebhookURL(f map[string]string, s string) {
	if s != "" && !validHTTPURL(s, MaxWebhookURLLen) {
		f["webhookUrl"] = "Please enter a valid http or https URL of at most 2048 characters"
	}
}

func validateTitle(f map[string]string, s string) {
	if strings.TrimSpace(s) == "" {
		f["title"] = "Please enter a title"
	} else if p := lineProblem(s, "The title", MaxTitleLen); p != "" {
		f["title"] = p
	}
}

func validateName(f map[string]string, s string) {
	if strings.TrimSpace(s) == "" {
		f["name"] = "Please enter a recipient name"
	} else if p := lineProblem(s, "The recipient name", MaxNameLen); p != "" {
		f["name"] = p
	}
}

func validateRecipient(f map[string]string, s string) {
	switch {
	case strings.TrimSpace(s) == "":
		f["recipient"] = "Please enter a recipient email address"
	case !ValidEmail(strings.TrimSpace(s)):
		f["recipient"] = "Please enter a valid email address"
	}
}

func validateBody(f map[string]string, s string) {
	switch {
	case strings.TrimSpace(s) == "":
		f["message"] = "Please enter a message"
	case len(s) > MaxBodyBytes:
		f["message"] = "The message must be at most 100 KB"
	case bodyProblem(s, "The message") != "":
		f["message"] = bodyProblem(s, "The message")
	}
}
