/* choice: an option's word among a list of choices. */
#ifndef MT_CHOICE_H
#define MT_CHOICE_H

/* s's index in words (NULL-ended), or mt_bad(what, s, choices) and exit 2. */
int echoice(const char *what, const char *s, const char *const *words, const char *choices);

#endif
