//! The last line (a search tool named only when skills are left out) and
//! the preferred skills.

use super::*;

fn skills_of(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("s-{i:02}"),
                format!("Skill number {i} does one thing well and says so here."),
            )
        })
        .collect()
}

fn render_budget(skills: &[(String, String)], budget: Budget) -> Entries {
    Catalog::new(skills.iter().map(|(n, d)| (n.as_str(), d.as_str())), 500)
        .expect("valid")
        .with_budget(Some(budget))
        .render()
}

#[test]
fn a_search_tool_is_named_in_the_last_line_only_when_skills_are_left_out() {
    let skills = skills_of(30);
    for chars in [100usize, 300, 600, 1200, 5000] {
        let plain = render_budget(&skills, Budget::new(chars, vec![]).expect("budget"));
        let tool = Budget::new(chars, vec![])
            .expect("budget")
            .with_search_tool(Some("skill_search".into()))
            .expect("tool");
        let searched = render_budget(&skills, tool);
        let last = searched
            .text
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .to_string();
        if plain.report.omitted == 0 {
            // Nothing left out: the very same block.
            assert_eq!(searched, plain, "budget {chars}");
            continue;
        }
        assert!(last.contains("`skill_search` tool"), "{last}");
        assert!(last.starts_with('('), "{last}");
        assert!(ends_with_notice(&searched.text));
        assert!(
            searched.report.chars <= chars.max(last.len()),
            "budget {chars}"
        );
        assert_eq!(searched.report.chars, utf16_len(&searched.text));
        let n = searched.report.omitted;
        let many = format!("({n} more skills are available but not listed here; find one by what it does with the `skill_search` tool, then load it by its exact name with the `skill` tool.)");
        assert_eq!(
            last,
            if n == 1 {
                Notice {
                    search_tool: Some("skill_search".into()),
                }
                .text(1)
            } else {
                many
            }
        );
    }
    let one = Notice {
        search_tool: Some("find".into()),
    };
    assert_eq!(one.text(1), "(1 more skill is available but not listed here; find it by what it does with the `find` tool, then load it by its exact name with the `skill` tool.)");
    assert_eq!(one.len(1), one.text(1).len());
    for bad in ["", "a`b", "two words", "x\n", &"a".repeat(65)] {
        assert_eq!(
            Budget::new(10, vec![])
                .expect("budget")
                .with_search_tool(Some(bad.to_string())),
            Err(CatalogError::SearchTool(bad.to_string()))
        );
    }
    assert!(is_tool_name("skill_search") && is_tool_name("tools.find-skill"));
}

#[test]
fn preferred_skills_give_way_after_every_other_group_and_before_the_pins() {
    let skills = skills_of(30);
    let preferred = vec![
        "s-03".to_string(),
        "s-29".to_string(),
        "not-here".to_string(),
    ];
    let plain = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()]).expect("budget"),
    );
    let used = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()])
            .expect("budget")
            .with_preferred(preferred),
    );
    let full = |e: &Entries, name: &str| {
        e.text
            .lines()
            .any(|l| l.starts_with(&format!("- `{name}`: Skill")))
    };
    assert!(plain.report.name_only > 0);
    assert!(full(&plain, "s-10") && full(&used, "s-10"));
    assert!(!full(&plain, "s-29") && full(&used, "s-29"));
    assert!(full(&used, "s-03"));
    // Without a preferred name that matches, nothing changes.
    let none = render_budget(
        &skills,
        Budget::new(600, vec!["s-10".into()])
            .expect("budget")
            .with_preferred(vec!["zz".into()]),
    );
    assert_eq!(none, plain);
}
