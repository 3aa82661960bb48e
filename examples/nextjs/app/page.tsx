/** The front end would call `POST /api/verifications` and send the browser to `verifyUrl`. */
export default function Home() {
  return (
    <main>
      <h1>faceverify with Next.js</h1>
      <p>
        Start a verification with <code>POST /api/verifications</code> and a JSON body{' '}
        <code>{'{"userId":"alice"}'}</code>; the webhook arrives at{' '}
        <code>/api/webhooks/verification</code>.
      </p>
    </main>
  );
}
