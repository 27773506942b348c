package compress

import (
	"fmt"
	"strings"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
)

// Source is what Segments turns into segments: an assembled prompt, the
// input it was assembled from, the planning tree and what is known of the
// target's conversation.
type Source struct {
	Prompt  *prompt.Prompt
	Input   *prompt.Input
	Project *planning.Project
	Facts   Facts
	// Pass is the iteration of the compression pass in effect.
	Pass int
	// Redact redacts a skill file's text (path, text) before a cut can
	// keep part of a secret; nil leaves it as it is.
	Redact func(path, text string) string
	// ProjectPath turns a path a tool call names into a clean
	// project-relative one ("" when outside the project; nil keeps it).
	ProjectPath func(string) string
	// Count counts tokens.
	Count Counter
}

// Segmented is a prompt cut into segments, with the way back: Apply
// writes the outcomes of Compress or ApplyLevel into the prompt.
type Segmented struct {
	// Segments are the prompt's scorable pieces, in prompt order: sections
	// (the skills section one per skill file), then one per message.
	Segments []Segment
	// Deduplicated lists the file reads replaced by a one-line pointer
	// ("KEY: why").
	Deduplicated []string
	// DedupedTokens are the tokens the pointers saved.
	DedupedTokens int

	p            *prompt.Prompt
	targets      []target
	skillSection int
}

// target is where a segment's text goes back: a section, a skill of the
// skills section or a message (the others -1).
type target struct {
	section, skill, msg int
}

// Apply writes outs (one per segment, in order) back into the prompt:
// section bodies, message contents, and the skills section joined from
// its skill segments.
func (sg *Segmented) Apply(outs []Outcome) {
	var skills []string
	for k, t := range sg.targets {
		text := outs[k].Text
		switch {
		case t.section >= 0:
			sg.p.Sections[t.section].Body = text
		case t.skill >= 0:
			skills = append(skills, text)
		case t.msg >= 0:
			sg.p.Messages[t.msg].Content = text
		}
	}
	if sg.skillSection >= 0 {
		sg.p.Sections[sg.skillSection].Body = strings.Join(skills, "\n\n")
	}
}

// Segments turns src.Prompt into scorable segments. Sections are one
// segment each, except the skills section (one per skill file) and the
// conversation (one per message). File reads are deduplicated first (one
// copy of a file per prompt): a read of a file shown in the Files section,
// a read superseded by a newer read (at or before the pass) with other
// content, and a later read with the same content as an earlier one become
// one-line pointers.
func Segments(src Source) *Segmented {
	s := &segmenter{src: src, sg: &Segmented{p: src.Prompt, skillSection: -1}}
	if s.src.ProjectPath == nil {
		s.src.ProjectPath = func(p string) string { return p }
	}
	s.sections()
	s.indexMessages()
	s.messages()
	return s.sg
}

// segmenter is one Segments call.
type segmenter struct {
	src Source
	sg  *Segmented
	// editing are the files the current task edits; inFiles those the
	// Files section shows.
	editing, inFiles map[string]bool
	// readPath is, per message, the project file a read tool result holds
	// ("" for other messages).
	readPath []string
	// texts are the text of each iteration's messages but file contents
	// (to find references to a file); errFirst the first lines of its
	// errors.
	texts    map[int]string
	errFirst map[int]map[string]bool
	// firstRead is the index of each path's first kept read, contentOf
	// its content.
	firstRead map[string]int
	contentOf map[string]string
}

// add appends a segment and where it goes back.
func (s *segmenter) add(seg Segment, t target) {
	s.sg.Segments = append(s.sg.Segments, seg)
	s.sg.targets = append(s.sg.targets, t)
}

// sections adds a segment per section but the conversation's, one per
// skill file for the skills section.
func (s *segmenter) sections() {
	p, in, proj := s.src.Prompt, s.src.Input, s.src.Project
	s.editing, s.inFiles = map[string]bool{}, map[string]bool{}
	if nt := proj.NextTask; nt != nil {
		for _, f := range nt.Files {
			s.editing[f] = true
		}
	}
	for _, f := range in.Files {
		s.inFiles[f.Path] = true
		s.editing[f.Path] = true
	}
	for i := range p.Sections {
		sec := &p.Sections[i]
		switch {
		case sec.ID == prompt.IDConversation:
			continue
		case sec.ID == prompt.IDSkills && len(in.Skills) > 0:
			s.sg.skillSection = i
			s.skills(sec.Tier)
			continue
		}
		seg := Segment{Key: "section:" + sec.ID, Kind: sectionKind(sec.ID), Text: sec.Body, Tier: int(sec.Tier), Pinned: sec.Pinned}
		s.add(seg, target{section: i, skill: -1, msg: -1})
	}
}

// sectionKind is the segment kind of a section.
func sectionKind(id string) Kind {
	switch id {
	case prompt.IDPlan:
		return KindTask
	case prompt.IDRecitation:
		return KindRecitation
	case prompt.IDPreserved, prompt.IDErrors, prompt.IDHealth, prompt.IDLoop:
		return KindSignal
	case prompt.IDFiles:
		return KindEditing
	}
	return KindOther
}

// skills adds one segment per skill file of the skills section.
func (s *segmenter) skills(tier prompt.Tier) {
	taskWords := Keywords(taskText(s.src.Project))
	for k, f := range s.src.Input.Skills {
		// Skill files come raw from the input: redact them before a cut
		// can keep part of a secret (the prompt's redaction ran).
		text := "### " + f.Path + "\n\n" + strings.TrimSpace(f.Text)
		if s.src.Redact != nil {
			text = s.src.Redact(f.Path, text)
		}
		s.add(Segment{
			Key: "skill:" + f.Path, Kind: KindSkill, Path: f.Path, Tier: int(tier),
			Text:    text,
			ForTask: skillUsed(f.Path, taskWords, s.src.Project, s.src.Facts.Mentions),
		}, target{section: -1, skill: k, msg: -1})
	}
}

// indexMessages finds, for the conversation, which call each tool result
// answers, the files read tools returned, the text of each iteration (to
// find references to a file) and its errors' first lines.
func (s *segmenter) indexMessages() {
	msgs := s.src.Prompt.Messages
	calls := map[string]prompt.ToolCall{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
	}
	s.readPath = make([]string, len(msgs))
	for i, m := range msgs {
		if m.Role == "tool" && isReadTool(m.ToolName, calls[m.ToolCallID].Name) {
			// Project files by their project-relative path, however the
			// call named them (Claude Code passes absolute paths).
			rp := ArgPath(calls[m.ToolCallID].Arguments)
			if pp := s.src.ProjectPath(rp); pp != "" {
				rp = pp
			}
			s.readPath[i] = rp
		}
	}
	iterText := map[int]*strings.Builder{}
	s.errFirst = map[int]map[string]bool{}
	for i, m := range msgs {
		it := s.src.Facts.Iters[m.ID]
		if iterText[it] == nil {
			iterText[it] = &strings.Builder{}
		}
		if s.readPath[i] == "" {
			iterText[it].WriteString(m.Content + "\n")
		}
		for _, c := range m.ToolCalls {
			iterText[it].WriteString(c.Arguments + "\n")
		}
		if m.IsError {
			if s.errFirst[it] == nil {
				s.errFirst[it] = map[string]bool{}
			}
			s.errFirst[it][OneLine("", m.Content)] = true
		}
	}
	s.texts = make(map[int]string, len(iterText))
	for it, b := range iterText {
		s.texts[it] = b.String()
	}
}

// unreferenced reports that no message of the 3 iterations after a read
// in iteration it mentions its path rp (file contents read do not count).
func (s *segmenter) unreferenced(rp string, it int) bool {
	for j := it + 1; j <= it+3; j++ {
		if strings.Contains(s.texts[j], rp) {
			return false
		}
	}
	return true
}

// superseded reports a newer read of the same path as message i with
// other content, made at or before the pass and within 5 iterations of
// it (so the read changes form only while young; between passes a
// changed file may be carried twice, so the prefix stays put).
func (s *segmenter) superseded(i int) bool {
	msgs, iters := s.src.Prompt.Messages, s.src.Facts.Iters
	it := iters[msgs[i].ID]
	for j := i + 1; j < len(msgs); j++ {
		n := iters[msgs[j].ID]
		if n > s.src.Pass || n > it+5 {
			break
		}
		if s.readPath[j] == s.readPath[i] && msgs[j].Content != msgs[i].Content {
			return true
		}
	}
	return false
}

// messages adds one segment per message of the conversation.
func (s *segmenter) messages() {
	s.firstRead, s.contentOf = map[string]int{}, map[string]string{}
	for i, m := range s.src.Prompt.Messages {
		seg := s.message(i, m)
		if seg.Text != m.Content {
			s.sg.DedupedTokens += s.src.Count(m.Content) - s.src.Count(seg.Text)
		}
		s.add(seg, target{section: -1, skill: -1, msg: i})
	}
}

// message is the segment of message i.
func (s *segmenter) message(i int, m prompt.Message) Segment {
	f := s.src.Facts
	it := f.Iters[m.ID]
	key := "msg:" + m.ID
	if m.ID == "" {
		key = fmt.Sprintf("msg#%d", i)
	}
	seg := Segment{Key: key, Text: m.Content, Iteration: it, Kind: KindHistory, Tier: int(prompt.Dynamic)}
	switch {
	case HasStopSignal(m):
		// A stop signal (BLOCKED, a rejected tool use with the user's words)
		// is never compressed (docs/formats.md#compression); the stops section
		// keeps only the latest ones. A rejected tool use arrives cut to 8 KiB
		// (the conversation layer's cutter).
		seg.Kind = KindSignal
	case m.IsError:
		seg.Kind = KindError
		// Resolved by a fix commit, or by the next iteration (at or
		// before the pass) running without this error.
		_, next := s.texts[it+1]
		seg.Resolved = f.Commits[m.ID] != "" || it > 0 && it+1 <= s.src.Pass && next && !s.errFirst[it+1][OneLine("", m.Content)]
	case m.Role == "assistant" && it > 0 && f.Iterations[it] != nil && f.Iterations[it].Failed:
		// What a failed iteration tried: never forgotten
		// (docs/formats.md#what-a-pass-forgets).
		seg.Kind = KindFailedApproach
	case m.Role == "assistant" && f.Commits[ApproachID(it)] != "" && it > 0:
		// The account of an approach a commit landed.
		seg.Kind, seg.Commit = KindApproach, f.Commits[ApproachID(it)]
	case s.readPath[i] != "":
		s.fileRead(&seg, i, m)
	}
	return seg
}

// fileRead scores a read of a file and replaces it with a pointer when
// another copy of the file is in the prompt.
func (s *segmenter) fileRead(seg *Segment, i int, m prompt.Message) {
	rp, it := s.readPath[i], seg.Iteration
	seg.Kind, seg.Path, seg.Unreferenced = KindFileRead, rp, s.unreferenced(rp, it)
	seg.Code = langCode(rp)
	if s.editing[rp] {
		seg.Kind = KindEditing
	}
	dedup := func(text, why string) {
		seg.Text, seg.Kind = text, KindOther
		s.sg.Deduplicated = append(s.sg.Deduplicated, seg.Key+": "+why)
	}
	switch j, seen := s.firstRead[rp]; {
	case s.inFiles[rp]:
		dedup("["+rp+": see Files of the current task]", rp+" is in the Files section")
	case it > 0 && s.superseded(i):
		dedup("["+rp+": superseded by a later read below]", "superseded by a later read")
	case seen && s.contentOf[rp] == m.Content:
		msgs := s.src.Prompt.Messages
		dedup(fmt.Sprintf("[%s: unchanged since the read in iteration %d above]", rp, s.src.Facts.Iters[msgs[j].ID]), "same content as "+msgs[j].ID)
	default:
		s.firstRead[rp], s.contentOf[rp] = i, m.Content
	}
}
