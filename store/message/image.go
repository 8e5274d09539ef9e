package message

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/internal/media"
	"github.com/rewind-agent/rewind/internal/words"
)

// Images in messages. A message carries an image as kimi-cli does: an
// image_url part with a data: URL, wrapped in text parts <image
// path="pic.png"> and </image> that say where it came from. The store
// keeps each image's bytes once, content-addressed, in its blob table: a
// stored body holds a blob reference in place of the data URL
// (StoreImages), and LoadImages puts the data URL back, byte for byte,
// before a body is sent to a model or exported.

// ImageURLType is the type of an image part.
const ImageURLType = "image_url"

// ImagePart is an image_url part for url.
func ImagePart(url string) Part {
	raw, _ := json.Marshal(struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}{Type: ImageURLType, ImageURL: struct {
		URL string `json:"url"`
	}{url}})
	return Part{Type: ImageURLType, Raw: raw}
}

// ImageParts is an image as kimi-cli wraps it in a message: <image
// path="…">, the image_url part, </image>.
func ImageParts(path, url string) []Part {
	open := "<image>"
	if path != "" {
		open = `<image path="` + html.EscapeString(path) + `">`
	}
	return []Part{{Type: "text", Text: open}, ImagePart(url), {Type: "text", Text: "</image>"}}
}

// ImageURL is the URL of an image part ("" for other parts); kimi-cli
// writes image_url as an object {"url": …}, some writers as a string.
func (p Part) ImageURL() string {
	if p.Type != ImageURLType {
		return ""
	}
	var v struct {
		ImageURL json.RawMessage `json:"image_url"`
	}
	if json.Unmarshal(p.Raw, &v) != nil {
		return ""
	}
	var s string
	if unmarshalString(v.ImageURL, &s) == nil {
		return s
	}
	var o struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(v.ImageURL, &o)
	return o.URL
}

// ImageInfo is what the conversation shows of an image: never its bytes.
type ImageInfo struct {
	Name   string `json:"name,omitempty"` // the path it was read from, "" when unknown
	Format string `json:"format"`         // png, jpeg, gif, webp; "" when unknown
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Size   int64  `json:"size"` // bytes sent
}

// Label is the image's line in the conversation:
// "[image pic.png · 640×480 PNG · 41 KB]".
func (i ImageInfo) Label() string {
	parts := []string{"image"}
	if i.Name != "" {
		parts[0] += " " + i.Name
	}
	var kind []string
	if i.Width > 0 && i.Height > 0 {
		kind = append(kind, fmt.Sprintf("%d×%d", i.Width, i.Height))
	}
	if i.Format != "" {
		kind = append(kind, strings.ToUpper(i.Format))
	}
	if len(kind) > 0 {
		parts = append(parts, strings.Join(kind, " "))
	}
	if i.Size > 0 {
		parts = append(parts, words.Size(i.Size))
	}
	return "[" + strings.Join(parts, " · ") + "]"
}

var imageOpenTag = regexp.MustCompile(`^<image(?: path="([^"]*)")?>$`)

// Images lists the images of a message, in order, with the path of the
// <image path="…"> tag before each.
func (c Content) Images() []ImageInfo {
	var out []ImageInfo
	name := ""
	for _, p := range c.Parts {
		switch p.Type {
		case "text":
			name = ""
			if m := imageOpenTag.FindStringSubmatch(strings.TrimSpace(p.Text)); m != nil {
				name = html.UnescapeString(m[1])
			}
		case ImageURLType:
			info := imageInfo(p.ImageURL())
			info.Name = name
			out = append(out, info)
			name = ""
		}
	}
	return out
}

// imageInfo reads what a URL says of its image: a blob reference carries
// it, a data URL is decoded as far as its header.
func imageInfo(url string) ImageInfo {
	if r, ok := parseImageRef(url); ok {
		return ImageInfo{Format: r.format, Width: r.width, Height: r.height, Size: r.size}
	}
	_, payload, ok := splitDataURL(url)
	if !ok {
		return ImageInfo{}
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return ImageInfo{}
	}
	f, w, h := media.Config(data)
	return ImageInfo{Format: f, Width: w, Height: h, Size: int64(len(data))}
}

// ImageBlob is an image's bytes to keep, addressed by the sha256 (hex) of
// Data.
type ImageBlob struct {
	Hash string
	Data []byte
}

// imageRefPrefix starts a blob reference in a stored body. A reference is
// rewind-blob:HASH;FORMAT;WxH;SIZE;HEAD where HEAD is the data URL up to
// its comma: only characters JSON never escapes, so the literal is the
// same however the body is written again.
const imageRefPrefix = "rewind-blob:"

type imageRef struct {
	hash          string
	format        string
	width, height int
	size          int64
	head          string
}

func (r imageRef) String() string {
	return fmt.Sprintf("%s%s;%s;%dx%d;%d;%s", imageRefPrefix, r.hash, r.format, r.width, r.height, r.size, r.head)
}

func parseImageRef(s string) (imageRef, bool) {
	rest, ok := strings.CutPrefix(s, imageRefPrefix)
	if !ok {
		return imageRef{}, false
	}
	f := strings.SplitN(rest, ";", 5)
	if len(f) != 5 || len(f[0]) != 64 {
		return imageRef{}, false
	}
	r := imageRef{hash: f[0], format: f[1], head: f[4]}
	ws, hs, _ := strings.Cut(f[2], "x")
	r.width, _ = strconv.Atoi(ws)
	r.height, _ = strconv.Atoi(hs)
	r.size, _ = strconv.ParseInt(f[3], 10, 64)
	return r, true
}

// splitDataURL splits a base64 data URL at its comma.
func splitDataURL(url string) (head, payload string, ok bool) {
	head, payload, ok = strings.Cut(url, ",")
	if !ok || !strings.HasPrefix(head, "data:") || !strings.HasSuffix(head, ";base64") {
		return "", "", false
	}
	return head, payload, true
}

// plainJSON reports whether s is written the same by every JSON encoder:
// printable ASCII without quotes, backslashes or HTML's <, > and &.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// StoreImages replaces each data URL of m's image parts in body (m's JSON)
// by a blob reference, and returns the bytes to keep. A data URL whose
// base64 is not exactly what encoding its bytes gives back, or that JSON
// might escape, stays inline: the reference must give back the very bytes
// of the body.
func StoreImages(body []byte, m Message) ([]byte, []ImageBlob) {
	var blobs []ImageBlob
	for _, p := range m.Content.Parts {
		url := p.ImageURL()
		head, payload, ok := splitDataURL(url)
		if !ok || !plainJSON(head) || !plainJSON(payload) {
			continue
		}
		data, err := base64.StdEncoding.Strict().DecodeString(payload)
		if err != nil || base64.StdEncoding.EncodeToString(data) != payload {
			continue
		}
		sum := sha256.Sum256(data)
		r := imageRef{hash: hex.EncodeToString(sum[:]), head: head, size: int64(len(data))}
		r.format, r.width, r.height = media.Config(data)
		lit, ref := `"`+url+`"`, `"`+r.String()+`"`
		if !bytes.Contains(body, []byte(lit)) || bytes.Contains(body, []byte(ref)) {
			continue
		}
		body = bytes.ReplaceAll(body, []byte(lit), []byte(ref))
		blobs = append(blobs, ImageBlob{Hash: r.hash, Data: data})
	}
	return body, blobs
}

// HasImageRefs reports whether a stored body holds blob references.
func HasImageRefs(body []byte) bool { return bytes.Contains(body, []byte(`"`+imageRefPrefix)) }

// LoadImages puts the data URLs back in a stored body: load returns the
// bytes kept under a hash.
func LoadImages(body []byte, load func(hash string) ([]byte, error)) ([]byte, error) {
	if !HasImageRefs(body) {
		return body, nil
	}
	var out bytes.Buffer
	rest := body
	for {
		i := bytes.Index(rest, []byte(`"`+imageRefPrefix))
		if i < 0 {
			out.Write(rest)
			return out.Bytes(), nil
		}
		end := bytes.IndexByte(rest[i+1:], '"')
		if end < 0 {
			out.Write(rest)
			return out.Bytes(), nil
		}
		lit := string(rest[i+1 : i+1+end])
		r, ok := parseImageRef(lit)
		out.Write(rest[:i+1])
		if !ok {
			out.WriteString(lit)
		} else {
			data, err := load(r.hash)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", r.hash[:12], err)
			}
			out.WriteString(r.head)
			out.WriteByte(',')
			out.WriteString(base64.StdEncoding.EncodeToString(data))
		}
		rest = rest[i+1+end:]
	}
}

// Prose is the readable text without the <image …> and </image> tags that
// wrap images: what the conversation shows as the message's text (Images
// lists the images).
func (c Content) Prose() string {
	if c.Parts == nil {
		return c.Text
	}
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Type != "text" {
			continue
		}
		if t := strings.TrimSpace(p.Text); t == "</image>" || imageOpenTag.MatchString(t) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}
