package main

import (
	"fmt"
	"time"

	"github.com/sendlater/sendlater/blob/s3"
	"github.com/sendlater/sendlater/core"
)

// AttachmentsConfig is where messages' files are kept and how many bytes
// each plan may attach (docs/attachments.md).
type AttachmentsConfig struct {
	// Storage is "store" (inside the store: bbolt or PostgreSQL) or "s3"
	// (S3-compatible object storage, for clusters).
	Storage string `mapstructure:"storage"`
	S3      struct {
		Endpoint      string `mapstructure:"endpoint"`
		Bucket        string `mapstructure:"bucket"`
		Region        string `mapstructure:"region"`
		Prefix        string `mapstructure:"prefix"`
		AccessKey     string `mapstructure:"access_key"`
		SecretKey     string `mapstructure:"secret_key" secret:"true"`
		SecretKeyFile string `mapstructure:"secret_key_file"`
		Insecure      bool   `mapstructure:"insecure"`
	} `mapstructure:"s3"`
	Starter  PlanFilesConfig `mapstructure:"starter"`
	Pro      PlanFilesConfig `mapstructure:"pro"`
	Business PlanFilesConfig `mapstructure:"business"`
	// StaleUploads is how long an incomplete upload lives before
	// `attachments gc` removes it.
	StaleUploads time.Duration `mapstructure:"stale_uploads"`
	// LinkValidFor is how long after delivery a recipient's file link
	// downloads.
	LinkValidFor time.Duration `mapstructure:"link_valid_for"`
	// InlineMax: a message's files totalling at most this many bytes also
	// go in its emails; 0: never.
	InlineMax int64 `mapstructure:"inline_max"`
}

// PlanFilesConfig is one plan's limits, in bytes (0 on per_message: the
// plan has no files).
type PlanFilesConfig struct {
	PerMessage int64 `mapstructure:"per_message"`
	PerAccount int64 `mapstructure:"per_account"`
}

// attachmentsDefaults are the attachments keys: inside the store, core's
// limits.
func attachmentsDefaults() map[string]any {
	d := map[string]any{"attachments.storage": "store", "attachments.s3.insecure": false,
		"attachments.stale_uploads": core.DefaultStaleUpload.String(), "attachments.link_valid_for": "2160h",
		"attachments.inline_max": 0}
	for _, k := range []string{"endpoint", "bucket", "region", "prefix", "access_key", "secret_key", "secret_key_file"} {
		d["attachments.s3."+k] = ""
	}
	for _, p := range []core.PlanID{core.PlanStarter, core.PlanPro, core.PlanBusiness} {
		l := core.DefaultAttachmentLimits[p]
		d["attachments."+string(p)+".per_message"] = l.PerMessage
		d["attachments."+string(p)+".per_account"] = l.PerAccount
	}
	return d
}

// readAttachmentsSecrets resolves attachments.s3.secret_key_file.
func (c *Config) readAttachmentsSecrets() error {
	return readSecretFile(&c.Attachments.S3.SecretKey, c.Attachments.S3.SecretKeyFile, "attachments.s3.secret_key_file")
}

// validateAttachments checks the attachments keys: a known storage, s3's
// keys complete when it is chosen, limits of 0 or more bytes.
func (c *Config) validateAttachments(bad func(key, rule string, got any) error) error {
	a := &c.Attachments
	switch a.Storage {
	case "store":
	case "s3":
		for key, v := range map[string]string{"attachments.s3.endpoint": a.S3.Endpoint, "attachments.s3.bucket": a.S3.Bucket,
			"attachments.s3.access_key": a.S3.AccessKey, "attachments.s3.secret_key": a.S3.SecretKey} {
			if v == "" {
				return bad(key, "must be set when attachments.storage is s3", v)
			}
		}
	default:
		return bad("attachments.storage", "must be store or s3", a.Storage)
	}
	for plan, l := range c.attachmentLimits() {
		key := "attachments." + string(plan)
		if l.PerMessage < 0 || l.PerAccount < 0 {
			return bad(key+".per_message", "and per_account must be 0 or more bytes", fmt.Sprint(l.PerMessage, " ", l.PerAccount))
		}
		if l.PerMessage > l.PerAccount {
			return bad(key+".per_account", fmt.Sprintf("must be at least per_message (%d bytes)", l.PerMessage), l.PerAccount)
		}
	}
	if a.StaleUploads < time.Hour {
		return bad("attachments.stale_uploads", "must be at least 1h", a.StaleUploads)
	}
	if v := a.LinkValidFor; v < core.MinOpenValidity || v > core.MaxOpenValidity {
		return bad("attachments.link_valid_for", "must be a duration between 24h and 87600h (ten years), how long after delivery a recipient's file link downloads, e.g. 2160h for 90 days", v)
	}
	if a.InlineMax < 0 || a.InlineMax > maxInline {
		return bad("attachments.inline_max", fmt.Sprintf("must be 0 (never) to %d bytes, the most a message's files may total to go in its emails", maxInline), a.InlineMax)
	}
	return nil
}

// maxInline bounds attachments.inline_max: a delivery holds the files it
// attaches in memory (once a message, for all its recipients), and mail
// servers refuse emails much larger (base64 adds a third).
const maxInline = 10_000_000

// attachmentLimits are the plans' limits of files.
func (c *Config) attachmentLimits() map[core.PlanID]core.AttachmentLimits {
	a := &c.Attachments
	return map[core.PlanID]core.AttachmentLimits{
		core.PlanStarter:  {PerMessage: a.Starter.PerMessage, PerAccount: a.Starter.PerAccount},
		core.PlanPro:      {PerMessage: a.Pro.PerMessage, PerAccount: a.Pro.PerAccount},
		core.PlanBusiness: {PerMessage: a.Business.PerMessage, PerAccount: a.Business.PerAccount},
	}
}

// blobs is where the files' sealed bytes go (attachments.storage): the
// store itself (bbolt chunked values, PostgreSQL chunk rows), or S3.
func (a *app) blobs(st store) (core.BlobStore, error) {
	cfg := a.cfg.Attachments
	if cfg.Storage == "s3" {
		return s3.Open(s3.Config{Endpoint: cfg.S3.Endpoint, Bucket: cfg.S3.Bucket, Region: cfg.S3.Region, Prefix: cfg.S3.Prefix,
			AccessKey: cfg.S3.AccessKey, SecretKey: cfg.S3.SecretKey, Insecure: cfg.S3.Insecure})
	}
	return st.Blobs(), nil
}
