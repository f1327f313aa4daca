/*-------------------------------------------------------------------------
 *
 * pager_adopt.h
 *	  The io worker's side of pg_upgrade's adoption (pager_adopt.c).
 *
 * pager_adopt_source and pager_adopt_file themselves are in pager.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_ADOPT_H
#define ARTRIE_PAGER_ADOPT_H

#include "pager/pager_internal.h"

extern void pager_adopt_forget_clean(void);
extern void pager_adopt_note_clean(void);

#endif							/* ARTRIE_PAGER_ADOPT_H */
